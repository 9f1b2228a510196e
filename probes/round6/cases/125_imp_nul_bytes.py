#!/usr/bin/env python3
# area: imports (hostile CSV/JSON); tries: imp_nul_bytes: import llm-debate on b"id,question,story,answer,transcript\n0,Q,s\x00x,Debater A,\"{}\"\n"
import sys, json; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import hostile
print(hostile.run_bytes(b"id,question,story,answer,transcript\n0,Q,s\x00x,Debater A,\"{}\"\n"))
