# area 1: view --export into a folder holding only a user's index.html (merely named like output) is refused
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); run = mkrun(f"{d}/run")
os.makedirs(f"{d}/site"); open(f"{d}/site/index.html", "w").write("MINE")
rc, out, err = ob("view", run, "--export", f"{d}/site")
if open(f"{d}/site/index.html").read() != "MINE":
    broke(f"user index.html overwritten (rc={rc})")
check_error(rc, out, err, "export into folder with user's index.html")
