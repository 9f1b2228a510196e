# Area 1: a resume refused for other settings (another --seed) leaves the run byte for byte as it was.
from probe import *
run = copy_run("d16")
before = snapshot(run)
p = ob(["run", *SMOKE, "--seed", "7", "--output", run])
if snapshot(run) != before:
    broke("the refused resume changed the run: " + diff(before, snapshot(run)))
why = one_line_error(p)
broke(why) if why else held("refused, run unchanged: " + last_line(err_of(p))[:120])
