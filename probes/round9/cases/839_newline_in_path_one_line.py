# area 8: paths holding a line break or an ESC sequence in error messages stay ONE line (no terminal injection):
# --output naming a regular file, --data-dir missing, --config missing, view of a non-run
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp()
f = f"{d}/a\nerror: FAKE SECOND LINE\x1b[2J"
open(f, "w").write("x")
cases = {"--output file": ("run", "--judge", "scripted:default", "--tasks", "arith", "--limit", "1", "--output", f),
         "--data-dir": ("run", "--judge", "scripted:default", "--tasks", "boolq", "--limit", "1", "--data-dir", f + "x", "--output", f"{d}/o"),
         "--config": ("run", "--config", f + "y"),
         "view": ("view", f, "--export", f"{d}/site"),
         "report": ("report", f, "--output", f"{d}/rep")}
for name, args in cases.items():
    rc, out, err = ob(*args)
    ls = [l for l in err.splitlines() if l.strip()]
    if any(l.startswith("Usage:") for l in ls):
        ls = [l for l in ls if not (l.startswith("Usage:") or l.startswith("Try '"))]
    if "Traceback" in err: broke(f"{name}: traceback")
    if rc != 2 or len(ls) != 1 or "\x1b" in err:
        esc = "\x1b" in err
        broke(f"{name}: exit {rc}, {len(ls)} lines, ESC passed: {esc}: {ls[:3]}")
held("all one line, control characters escaped")
