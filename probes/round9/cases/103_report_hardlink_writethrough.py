# area 1: an earlier report whose report.md is a hard link to a user's file elsewhere: a rewrite must not
# write through it (symbolic links are refused; a hard link is the same hazard)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); run = mkrun(f"{d}/run")
rc, out, err = ob("report", run, "--output", f"{d}/rep", "--no-figures"); assert rc == 0, err
open(f"{d}/thesis.md", "w").write("MY THESIS, months of work\n")
os.remove(f"{d}/rep/report.md"); os.link(f"{d}/thesis.md", f"{d}/rep/report.md")
rc, out, err = ob("report", run, "--output", f"{d}/rep", "--no-figures")
if "MY THESIS" not in open(f"{d}/thesis.md").read():
    broke(f"report (rc={rc}) wrote through a hard link in its folder: {d}/thesis.md now starts {open(f'{d}/thesis.md').read()[:40]!r}")
held(f"hard-linked file untouched (rc={rc}) {err.strip()[:150]}")
