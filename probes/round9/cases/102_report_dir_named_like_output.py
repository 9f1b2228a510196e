# area 1: an earlier report folder in which groups.csv is now a FOLDER (of the user's files): report must
# refuse in one line (not traceback, not delete it)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); run = mkrun(f"{d}/run")
rc, out, err = ob("report", run, "--output", f"{d}/rep", "--no-figures")
assert rc == 0, err
os.remove(f"{d}/rep/groups.csv"); os.makedirs(f"{d}/rep/groups.csv"); open(f"{d}/rep/groups.csv/mine.txt", "w").write("x")
rc, out, err = ob("report", run, "--output", f"{d}/rep", "--no-figures")
if not os.path.exists(f"{d}/rep/groups.csv/mine.txt"):
    broke("user's file inside a folder named groups.csv deleted")
check_error(rc, out, err, "report over a folder named groups.csv")
