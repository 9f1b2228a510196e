# area 3: 200000 unclosed <quote> tags in one argument (linear time)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from implib import *
d = tmp()
p = write_csv(f"{d}/x.csv", [transcript(correct="<quote>" * 200000 + "x</quote>" + "<v_passage>" * 50000)])
rc, out, err, wall = do_import(p, d)
if wall > 60:
    broke(f"import_unclosed_tags: took {wall:.0f}s")
check_graceful(rc, out, err, "import_unclosed_tags")
