# area 3: a transcript nested 200000 deep
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from implib import *
d = tmp()
p = write_csv(f"{d}/x.csv", ["[" * 200000 + "]" * 200000, transcript()])
rc, out, err, wall = do_import(p, d)
if wall > 60:
    broke(f"import_deep_nesting: took {wall:.0f}s")
check_graceful(rc, out, err, "import_deep_nesting")
