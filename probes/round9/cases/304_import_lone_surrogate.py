# area 3: a transcript with lone surrogate escapes in text and keys
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from implib import *
d = tmp()
p = write_csv(f"{d}/x.csv", [json.dumps(transcript()).replace("I argue", "I \\\\ud800 argue \\\\udfff").replace("\"names\"", "\"\\\\ud83d\"")])
rc, out, err, wall = do_import(p, d)
if wall > 60:
    broke(f"import_lone_surrogate: took {wall:.0f}s")
check_graceful(rc, out, err, "import_lone_surrogate")
