"""Hostile-store harness: a valid run, one SQL mutation, then a reader: graceful or one-line exit 2."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import *


def store_case(name, sql, readers=("report", "view", "export", "salvage", "resume", "judge"), protocols=None):
    d = tmp()
    run = mkrun(f"{d}/run", **({"protocols": protocols} if protocols else {}))
    c = sqlite3.connect(f"{run}/results.sqlite")
    for stmt in ([sql] if isinstance(sql, str) else sql):
        if callable(stmt):
            stmt(c)
        else:
            c.execute(stmt)
    c.commit(); c.close()
    results = []
    for r in readers:
        if r == "report":
            res = ob("report", run, "--output", f"{d}/rep", "--no-figures")
        elif r == "view":
            res = ob("view", run, "--export", f"{d}/site")
        elif r == "export":
            res = ob("export", run)
        elif r == "prefs":
            res = ob("export", run, "--preferences")
        elif r == "salvage":
            res = ob("salvage", run, "--output", f"{d}/salv")
        elif r == "judge":
            res = ob("judge", "--from", run, "--judge", "scripted:default", "--output", f"{d}/rej", "--quiet")
        elif r == "leaderboard":
            res = ob("leaderboard", run, "--output", f"{d}/lb")
        elif r == "resume":
            res = ob("run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "arith",
                     "--protocols", protocols or "qa_without_article,consultancy,debate", "--limit", 2, "--rounds", 1,
                     "--best-of-n", 1, "--output", run, "--quiet")
        rc, out, err = res
        if "Traceback" in err or "Traceback" in out:
            broke(f"{name}: `{r}` traceback: {[l for l in err.splitlines() if l.strip()][-1:]}")
        ls = [l for l in err.splitlines() if l.strip() and not l.lower().startswith("warning")]
        if rc == 2 and len(ls) != 1 and r != "salvage":
            broke(f"{name}: `{r}` exit 2 with {len(ls)} lines: {ls[:3]}")
        if rc not in (0, 1, 2):
            broke(f"{name}: `{r}` exit {rc}: {err[-200:]}")
        results.append(f"{r}={rc}")
    held(f"{name}: " + " ".join(results))
