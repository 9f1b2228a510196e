# Area 1 (data loss): report --output '' (empty: the current folder) with a user's files in the cwd
from probe import *
from foreign import check
from pathlib import Path
t = tmpdir("d11"); run = copy_run("d11"); (t / "cwd").mkdir(); (t / "cwd" / "notes.txt").write_text("mine")
before = snapshot(t / "cwd")
p = ob(["report", run, "--output", ""], cwd=t / "cwd")
if snapshot(t / "cwd") != before: broke("wrote into the current folder: " + diff(before, snapshot(t / "cwd")))
why = one_line_error(p)
broke(why) if why else held("refused: " + last_line(err_of(p))[:120])
