# Area 1: `report --output` given an existing earlier report of ANOTHER run set: allowed to rebuild
# only its own files; a user file added to it is kept.
from probe import *
t = tmpdir("d22"); run = copy_run("d22")
p = ob(["report", run, "--output", t / "rep", "--no-figures"])
if p.returncode: error("first report failed: " + last_line(err_of(p)))
(t / "rep" / "my-analysis.ipynb").write_text("{}")
before = snapshot(t / "rep")
p = ob(["report", run, "--output", t / "rep", "--no-figures"])
after = snapshot(t / "rep")
if "my-analysis.ipynb" not in after or after["my-analysis.ipynb"] != before["my-analysis.ipynb"]:
    broke("the user's file in the report folder was removed/changed")
why = no_traceback(p)
broke(why) if why else held(f"rc {p.returncode}; user's file kept: {last_line(err_of(p))[:100]}")
