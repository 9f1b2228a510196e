#!/usr/bin/env python3
# area: imports (hostile CSV/JSON); tries: imp_empty_file: import llm-debate on b""
import sys, json; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import hostile
print(hostile.run_bytes(b""))
