#!/usr/bin/env python3
# area: imports (hostile CSV/JSON); tries: a JSON integer of 5,000 digits (past Python's int-str limit) in the transcript
import sys, json; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import hostile
tr = json.dumps(hostile.good_tr(question_set_id=1)).replace('"question_set_id": 1', '"question_set_id": 1' + "0" * 5000)
print(hostile.run_bytes(hostile.csv_with_transcript(tr)))
