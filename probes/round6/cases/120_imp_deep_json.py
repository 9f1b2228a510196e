#!/usr/bin/env python3
# area: imports (hostile CSV/JSON); tries: imp_deep_json: import llm-debate on hostile.csv_with_transcript("["*200000 + "]"*200000)
import sys, json; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import hostile
print(hostile.run_bytes(hostile.csv_with_transcript("["*200000 + "]"*200000)))
