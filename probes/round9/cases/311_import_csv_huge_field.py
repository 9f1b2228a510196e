# area 3: a CSV field of 200 MB (beyond csv's default field limit) as one quoted cell
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from implib import *
d = tmp()
p = f"{d}/x.csv"; f = open(p, "wb"); f.write(b"id,transcript\n1,\"" + b"a" * (200 << 20) + b"\"\n"); f.close()
rc, out, err, wall = do_import(p, d)
if wall > 60:
    broke(f"import_csv_huge_field: took {wall:.0f}s")
check_graceful(rc, out, err, "import_csv_huge_field")
