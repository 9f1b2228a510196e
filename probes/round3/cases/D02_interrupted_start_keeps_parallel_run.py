# Area 1: a `run` interrupted (Ctrl-C) during its start must not remove a run written meanwhile into
# the parent folder it created, nor a file a user put into its own new output folder.
import os, time, shutil, signal
from pathlib import Path
from probe import *
from slowtask import SOURCE
t = tmpdir("d02")
site = make_plugin(t / "site", "probe_slowtask", SOURCE, dist_name="probe-slowtask")
go = t / "go"
parent = t / "runs" / "X"
p = ob_popen(["run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "probe_slow",
              "--protocols", "qa_without_article", "--quiet", "--output", parent / "a" / "deep"],
             env={"PROBE_GO": str(go), "PROBE_MODE": "ok"}, pythonpath=[str(site)])
end = time.time() + 60
while not Path(str(go) + ".waiting").exists() and time.time() < end and p.poll() is None:
    time.sleep(0.05)
if p.poll() is not None:
    error("run ended before its task loaded: " + last_line(text(p.stderr.read())))
shutil.copytree(base_run(), parent / "b")
(parent / "a" / "notes.txt").write_text("a user's notes, put beside the run while it started")
before = snapshot(parent)
os.killpg(p.pid, signal.SIGINT)
try:
    out, errs = p.communicate(timeout=60)
except Exception:
    kill_tree(p); broke("the interrupted run did not end")
after = snapshot(parent)
lost = [k for k in before if k not in after and not k.startswith("a/deep")]
if lost:
    broke(f"interrupted start removed {lost[:4]} (not its own); rc={p.returncode}")
if "Traceback" in text(errs):
    broke("traceback on Ctrl-C: " + last_line(text(errs)))
held(f"Ctrl-C at start (rc {p.returncode}) kept the parallel run and the user's file")
