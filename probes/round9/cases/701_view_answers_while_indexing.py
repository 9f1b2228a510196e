# area 7: `view` answers while it indexes: over 40 runs, the first page answers within 3 s of the port opening
import os, sys, time; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from weblib import *
d = tmp(); base = mkrun(f"{d}/runs/r0", limit=20)
import shutil
for i in range(1, 40):
    shutil.copytree(base, f"{d}/runs/r{i}")
s = Server("view", f"{d}/runs")
try:
    op, jar = browser()
    t = time.time()
    st, body, h = fetch(op, s.url + "/", timeout=30)
    dt = time.time() - t
finally:
    s.close()
if st != 200 or dt > 3:
    broke(f"first page: status {st} after {dt:.1f}s (port open after {s.started:.1f}s)")
held(f"first page {st} in {dt:.2f}s (port open after {s.started:.1f}s); says indexing: {'index' in body.lower()}")
