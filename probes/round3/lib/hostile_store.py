"""A valid-but-hostile results.sqlite (one field of one record kind given a value of the wrong type,
a lone surrogate, bytes, a huge value): every reader must end without a traceback (exit 0, 1 or a
one-line exit 2) and within its time."""
import json
from probe import *

READERS = {
    "salvage": lambda r, t: ["salvage", r, "--output", t / "salvaged"],
    "report": lambda r, t: ["report", r, "--output", t / "rep", "--no-figures"],
    "view-export": lambda r, t: ["view", r, "--export", t / "site"],
    "export": lambda r, t: ["export", r],
    "export-prefs": lambda r, t: ["export", r, "--preferences"],
    "resume": lambda r, t: ["run", *SMOKE, "--output", r],
    "judge-from": lambda r, t: ["judge", "--from", r, "--judge", "scripted:default", "--output", t / "rejudge", "--quiet"],
    "leaderboard": lambda r, t: ["leaderboard", r, "--output", t / "lb"],
}


def check(sqls, tag, readers=None, timeout=120, py=None):
    t = tmpdir(tag)
    run = copy_run(tag)
    c = db(run)
    for s in sqls:
        if isinstance(s, tuple):
            c.execute(*s)
        else:
            c.execute(s)
    if py:
        py(c, run)
    c.close()
    problems, seen = [], []
    for name in readers or READERS:
        r = run if name != "resume" else run  # resume writes; it runs last below
        if name == "resume":
            continue
        p = ob(READERS[name](run, t), timeout=timeout)
        seen.append(f"{name}:{p.returncode}")
        why = no_traceback(p)
        if why is None and p.returncode == 2 and "error:" not in err_of(p):
            why = "exit 2 without an error: line"
        if why:
            problems.append(f"{name}: {why}")
    if readers is None or "resume" in readers:
        p = ob(READERS["resume"](run, t), timeout=timeout)
        seen.append(f"resume:{p.returncode}")
        why = no_traceback(p)
        if why:
            problems.append(f"resume: {why}")
    if problems:
        broke(f"{len(problems)} reader(s) broke [{', '.join(x.split(':')[0] for x in problems)}]; first: {problems[0]}")
    held("every reader ended cleanly (" + " ".join(seen) + ")")
