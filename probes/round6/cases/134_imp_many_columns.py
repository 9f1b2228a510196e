#!/usr/bin/env python3
# area: imports (hostile CSV/JSON); tries: imp_many_columns: import llm-debate on (",".join(f"c{i}" for i in range(100000)) + ",transcript\n" + "," * 100000 + "{}\n").encode()
import sys, json; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import hostile
print(hostile.run_bytes((",".join(f"c{i}" for i in range(100000)) + ",transcript\n" + "," * 100000 + "{}\n").encode()))
