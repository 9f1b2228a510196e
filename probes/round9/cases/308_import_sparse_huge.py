# area 3: a 300 MB sparse CSV (bounded read, one line)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from implib import *
d = tmp()
p = f"{d}/x.csv"; f = open(p, "wb"); f.write(b"id,transcript\n"); f.truncate(300 << 20); f.close()
rc, out, err, wall = do_import(p, d)
if wall > 60:
    broke(f"import_sparse_huge: took {wall:.0f}s")
check_graceful(rc, out, err, "import_sparse_huge")
