# Area 1: a `run` whose start is refused after it created a new parent folder must not remove a
# finished run another command wrote into that parent meanwhile (issue 37: two runs into runs/X/...).
import os, time, shutil
from pathlib import Path
from probe import *
from slowtask import SOURCE
t = tmpdir("d01")
site = make_plugin(t / "site", "probe_slowtask", SOURCE, dist_name="probe-slowtask")
go = t / "go"
parent = t / "runs" / "X"
p = ob_popen(["run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "probe_slow",
              "--protocols", "qa_without_article", "--quiet", "--output", parent / "a"],
             env={"PROBE_GO": str(go), "PROBE_MODE": "refuse"}, pythonpath=[str(site)])
end = time.time() + 60
while not Path(str(go) + ".waiting").exists() and time.time() < end and p.poll() is None:
    time.sleep(0.05)
if p.poll() is not None:
    error("run ended before its task loaded: " + last_line(text(p.stderr.read())))
# another command's finished run, written into the new parent meanwhile
shutil.copytree(base_run(), parent / "b")
before = snapshot(parent / "b")
go.write_text("go")
try:
    out, errs = p.communicate(timeout=60)
except Exception:
    kill_tree(p); broke("the refused run did not end")
if not (parent / "b").exists():
    broke(f"the refused start removed {parent/'b'} (another run's folder); stderr: {last_line(text(errs))}")
d = diff(before, snapshot(parent / "b"))
if d:
    broke("the other run changed: " + d)
if p.returncode != 2 or "Traceback" in text(errs):
    broke(f"refusal was not a one-line error: rc={p.returncode} {last_line(text(errs))}")
held(f"refused start (rc 2) left the parallel run intact; a/ exists={(parent/'a').exists()}")
