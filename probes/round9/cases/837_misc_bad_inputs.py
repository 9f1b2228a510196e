# area 8: a batch of reader flags with bad values, each must be one line, exit 2, no traceback:
# view --page-size 0, view --cells (a list / NaN / deep), leaderboard --carry (NaN, deep, not a results.json),
# elo --from a non-crossplay run, run --cache-from itself, price_in=nan
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); run = mkrun(f"{d}/run")
open(f"{d}/list.json", "w").write("[1,2]"); open(f"{d}/nan.json", "w").write('{"cells": {"a": NaN}}')
open(f"{d}/deep.json", "w").write("[" * 100000 + "]" * 100000)
cases = {
    "view --page-size 0": ("view", run, "--export", f"{d}/s1", "--page-size", "0"),
    "view --cells list": ("view", run, "--export", f"{d}/s2", "--cells", f"{d}/list.json"),
    "view --cells NaN": ("view", run, "--export", f"{d}/s3", "--cells", f"{d}/nan.json"),
    "view --cells deep": ("view", run, "--export", f"{d}/s4", "--cells", f"{d}/deep.json"),
    "leaderboard --carry NaN": ("leaderboard", run, "--output", f"{d}/l1", "--carry", f"{d}/nan.json"),
    "leaderboard --carry deep": ("leaderboard", run, "--output", f"{d}/l2", "--carry", f"{d}/deep.json"),
    "elo --from non-crossplay": ("elo", "--from", run, "--output", f"{d}/e1"),
    "run --cache-from itself": ("run", "--judge", "scripted:default", "--tasks", "arith", "--limit", "1", "--output", f"{d}/c1", "--cache-from", f"{d}/c1"),
    "price_in=nan": ("run", "--judge", "scripted:default,price_in=nan,price_out=1", "--tasks", "arith", "--limit", "1", "--output", f"{d}/p1", "--max-cost", "1"),
}
res = []
for name, args in cases.items():
    rc, out, err = ob(*args)
    ls = [l for l in err.splitlines() if l.strip() and not l.lower().startswith("warning")]
    if "Traceback" in err:
        broke(f"{name}: traceback {ls[-1:]}")
    if rc != 2 or len(ls) != 1:
        broke(f"{name}: exit {rc}, {len(ls)} lines: {ls[:2]}")
    res.append(name)
held(f"all {len(res)} one line, exit 2")
