#!/usr/bin/env python3
# area: imports (hostile CSV/JSON); tries: imp_latin1: import llm-debate on "id,question,story,answer,transcript\n0,Q\xe9,s,Debater A,{}\n".encode("latin-1")
import sys, json; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import hostile
print(hostile.run_bytes("id,question,story,answer,transcript\n0,Q\xe9,s,Debater A,{}\n".encode("latin-1")))
