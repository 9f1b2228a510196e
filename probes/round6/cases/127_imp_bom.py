#!/usr/bin/env python3
# area: imports (hostile CSV/JSON); tries: imp_bom: import llm-debate on b"\xef\xbb\xbf" + hostile.csv_with_transcript(json.dumps(hostile.good_tr()))
import sys, json; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import hostile
print(hostile.run_bytes(b"\xef\xbb\xbf" + hostile.csv_with_transcript(json.dumps(hostile.good_tr()))))
