# area 3: import --output an existing run folder (must be refused, nothing deleted)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from implib import *
d = tmp()
mkrun(f"{d}/imp"); before = snapshot(f"{d}/imp"); p = write_csv(f"{d}/x.csv", [transcript()])
rc, out, err, wall = do_import(p, d)
if snapshot(f"{d}/imp") != before: broke(f"import changed an existing run (rc={rc})")
check_error(rc, out, err, "import over existing run")
rc, out, err, wall = do_import(p, d)
if wall > 60:
    broke(f"import_existing_output: took {wall:.0f}s")
check_graceful(rc, out, err, "import_existing_output")
