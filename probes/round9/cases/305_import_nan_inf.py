# area 3: a transcript with NaN, Infinity and 1e999 values
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from implib import *
d = tmp()
p = write_csv(f"{d}/x.csv", [json.dumps(transcript()).replace("\"index\": 0", "\"index\": NaN, \"x\": Infinity, \"y\": 1e999")])
rc, out, err, wall = do_import(p, d)
if wall > 60:
    broke(f"import_nan_inf: took {wall:.0f}s")
check_graceful(rc, out, err, "import_nan_inf")
