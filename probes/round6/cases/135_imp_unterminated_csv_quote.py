#!/usr/bin/env python3
# area: imports (hostile CSV/JSON); tries: imp_unterminated_csv_quote: import llm-debate on b"id,transcript\n0,\"" + b"a" * 2000000 + b"\n"
import sys, json; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import hostile
print(hostile.run_bytes(b"id,transcript\n0,\"" + b"a" * 2000000 + b"\n"))
