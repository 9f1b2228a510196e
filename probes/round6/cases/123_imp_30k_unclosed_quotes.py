#!/usr/bin/env python3
# area: imports (hostile CSV/JSON); tries: imp_30k_unclosed_quotes: import llm-debate on hostile.csv_with_transcript(json.dumps(hostile.good_tr(rounds=[{"correct": "<quote>abc "*30000, "incorrect": "<v_passage>x "*30000}])), "The ship. " *
import sys, json; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import hostile
print(hostile.run_bytes(hostile.csv_with_transcript(json.dumps(hostile.good_tr(rounds=[{"correct": "<quote>abc "*30000, "incorrect": "<v_passage>x "*30000}])), "The ship. " * 3000)))
