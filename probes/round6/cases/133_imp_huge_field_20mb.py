#!/usr/bin/env python3
# area: imports (hostile CSV/JSON); tries: imp_huge_field_20mb: import llm-debate on hostile.csv_with_transcript(json.dumps(hostile.good_tr(rounds=[{"correct": "x" * 20_000_000, "incorrect": "y"}])))
import sys, json; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import hostile
print(hostile.run_bytes(hostile.csv_with_transcript(json.dumps(hostile.good_tr(rounds=[{"correct": "x" * 20_000_000, "incorrect": "y"}])))))
