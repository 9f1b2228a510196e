# area 1: a user's folder holding their --cells input (cells.json in the documented shape) and their own
# index.html must be refused by view --export, not taken for an earlier export and overwritten
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); run = mkrun(f"{d}/run")
key = q(f"{run}/results.sqlite", "select judge, job_key from records where kind='decision' limit 1")[0]
os.makedirs(f"{d}/mine")
json.dump({"cells": {"my-cell": {"title": "my pick", "decisions": [["../run", key[0], key[1]]]}}}, open(f"{d}/mine/cells.json", "w"))
open(f"{d}/mine/index.html", "w").write("<h1>my own hand-written page</h1>")
rc, out, err = ob("view", run, "--export", f"{d}/mine", "--cells", f"{d}/mine/cells.json")
now = open(f"{d}/mine/index.html").read()
if "my own hand-written page" not in now:
    broke(f"view --export (rc={rc}) overwrote the user's index.html: a --cells input named cells.json passes as an earlier export's manifest")
if rc == 0:
    broke("export succeeded into a user folder (index.html kept?)")
check_error(rc, out, err, "user folder with cells.json + index.html")
