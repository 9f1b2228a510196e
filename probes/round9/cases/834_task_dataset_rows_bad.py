# area 8: a custom task whose data rows are malformed (bad JSON lines, missing fields, NaN, a 1 MB line,
# nested values): the run either skips and counts them or stops in one line; never a traceback
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); os.makedirs(f"{d}/tasks"); os.makedirs(f"{d}/data/mine")
open(f"{d}/tasks/t.yaml", "w").write("name: mytask\ntask_type: closed\ndescription: x\nloader: table\nsource: {local: {files: [mine/rows.jsonl]}}\nfields: {id: id, question: q, correct: c, incorrect: i}\nbinary: {mode: pair}\nsample_size: 8\nseed: 0\n")
rows = ['{"id": "1", "q": "2+2?", "c": "4", "i": "5"}', '{not json', '{"id": "2", "q": "x"}', '{"id": "3", "q": NaN, "c": "1", "i": "2"}',
        '{"id": "4", "q": ["a", {"b": 1}], "c": 1, "i": null}', '{"id": "5", "q": "' + "z" * 1000000 + '", "c": "1", "i": "2"}',
        '[1,2,3]', '{"id": "1", "q": "dup id", "c": "a", "i": "b"}', '{"id": "6", "q": "same answers", "c": "a", "i": "a"}', '\ufeff{"id": "7", "q": "bom", "c": "a", "i": "b"}']
open(f"{d}/data/mine/rows.jsonl", "w").write("\n".join(rows) + "\n")
rc, out, err = ob("run", "--judge", "scripted:default", "--tasks", "mytask", "--include-path", f"{d}/tasks", "--data-dir", f"{d}/data",
                  "--protocols", "qa_without_article", "--output", f"{d}/out", "--quiet")
check_graceful(rc, out, err, "malformed dataset rows", ok_rcs=(0, 2))
