# Area 1: `judge --from RUN --output RUN/sub` (a reader writing inside the run it reads) is refused.
from probe import *
run = copy_run("d18"); before = snapshot(run)
p = ob(["judge", "--from", run, "--judge", "scripted:default", "--output", run / "rejudge", "--quiet"])
if snapshot(run) != before:
    broke("the source run changed: " + diff(before, snapshot(run)))
why = one_line_error(p)
broke(why) if why else held("refused: " + last_line(err_of(p))[:120])
