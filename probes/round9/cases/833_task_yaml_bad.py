# area 8: an --include-path task YAML with a wrong field type (sample_size: lots) and an unknown loader: one line naming the file and field
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); os.makedirs(f"{d}/tasks")
open(f"{d}/tasks/t.yaml", "w").write("name: mytask\ntask_type: closed\ndescription: x\nloader: table\nsource: {local: {files: [x.jsonl]}}\nfields: {question: q, correct: c, incorrect: i}\nbinary: {mode: pair}\nsample_size: lots\n")
rc, out, err = ob("run", "--judge", "scripted:default", "--tasks", "mytask", "--include-path", f"{d}/tasks", "--output", f"{d}/out")
if os.path.exists(f"{d}/out"): broke("wrote output")
check_error(rc, out, err, "task YAML with bad sample_size", must="sample_size")
