# area 3: a CSV in Latin-1 with NUL bytes
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from implib import *
d = tmp()
p = write_csv(f"{d}/x.csv", [], raw=b"id,transcript\n1,\"caf\xe9\x00\"\n")
rc, out, err, wall = do_import(p, d)
if wall > 60:
    broke(f"import_not_utf8: took {wall:.0f}s")
check_graceful(rc, out, err, "import_not_utf8")
