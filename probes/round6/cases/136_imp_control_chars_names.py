#!/usr/bin/env python3
# area: imports (hostile CSV/JSON); tries: imp_control_chars_names: import llm-debate on hostile.csv_with_transcript(json.dumps(hostile.good_tr(names={"correct": "Debater\x1b[31m A", "incorrect": "B\r\nX"})))
import sys, json; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import hostile
print(hostile.run_bytes(hostile.csv_with_transcript(json.dumps(hostile.good_tr(names={"correct": "Debater\x1b[31m A", "incorrect": "B\r\nX"})))))
