#!/usr/bin/env python3
# area: imports (hostile CSV/JSON); tries: imp_lone_surrogate_escape: import llm-debate on hostile.csv_with_transcript(json.dumps(hostile.good_tr(question="\ud800 x")))
import sys, json; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import hostile
print(hostile.run_bytes(hostile.csv_with_transcript(json.dumps(hostile.good_tr(question="\ud800 x")))))
