#!/usr/bin/env python3
# area: imports (hostile CSV/JSON); tries: imp_names_dict_of_lists: import llm-debate on hostile.csv_with_transcript(json.dumps(hostile.good_tr(names={"correct": [1], "incorrect": {"a": 1}})))
import sys, json; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import hostile
print(hostile.run_bytes(hostile.csv_with_transcript(json.dumps(hostile.good_tr(names={"correct": [1], "incorrect": {"a": 1}})))))
