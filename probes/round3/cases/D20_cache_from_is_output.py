# Area 1: `run --cache-from X --output X/../X` (the same folder by another spelling) is refused; X unchanged.
from probe import *
run = copy_run("d20"); before = snapshot(run)
p = ob(["run", *SMOKE, "--seed", "3", "--cache-from", run, "--output", f"{run}/../{run.name}"])
if snapshot(run) != before:
    broke("the run changed: " + diff(before, snapshot(run)))
why = one_line_error(p)
broke(why) if why else held("refused: " + last_line(err_of(p))[:120])
