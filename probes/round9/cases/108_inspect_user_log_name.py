# area 1: export --inspect DIR where DIR holds a user's file merely named like a log (*.eval / *.json): refused
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); run = mkrun(f"{d}/run")
rc, out, err = ob("export", run, "--inspect", f"{d}/logs")
if rc != 0:
    held(f"export --inspect unavailable here (rc={rc}): {err.strip()[-150:]} -- nothing to overwrite")
names = sorted(os.listdir(f"{d}/logs"))
d2 = f"{d}/logs2"; os.makedirs(d2)
victims = [n for n in names if n != "oversight-bench-inspect.json"]
for n in victims:
    open(f"{d2}/{n}", "w").write("MINE")
rc, out, err = ob("export", run, "--inspect", d2)
changed = [n for n in victims if open(f"{d2}/{n}").read() != "MINE"]
if changed:
    broke(f"export --inspect (rc={rc}) overwrote user files named like logs: {changed[:2]}")
check_error(rc, out, err, "inspect into a folder of user files named like logs")
