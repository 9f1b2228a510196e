# Area 1 (data loss): `view RUN --export RUN/site` and `leaderboard RUN --output RUN` (writing inside the run read): refused, the run unchanged
from probe import *
run = copy_run("d23"); before = snapshot(run)
p = ob(["view", run, "--export", run / "site"])
q = ob(["leaderboard", run, "--output", run, "--force"])
if snapshot(run) != before: broke("the run changed: " + diff(before, snapshot(run)))
for x, name in ((p, "view"), (q, "leaderboard")):
    why = one_line_error(x)
    if why: broke(f"{name}: {why}")
held("both refused in one line, run unchanged")
