# Area 1: while one `run` writes a folder (held in its start), a second `run` into the same folder
# (given through a symbolic link, and after the old .lock file is deleted) is refused.
import time, os
from pathlib import Path
from probe import *
from slowtask import SOURCE
t = tmpdir("d17")
site = make_plugin(t / "site", "probe_slowtask", SOURCE, dist_name="probe-slowtask")
go = t / "go"; out = t / "run"
args = ["run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "probe_slow",
        "--protocols", "qa_without_article", "--quiet"]
p = ob_popen([*args, "--output", out], env={"PROBE_GO": str(go), "PROBE_MODE": "ok"}, pythonpath=[str(site)])
end = time.time() + 60
while not Path(str(go) + ".waiting").exists() and time.time() < end and p.poll() is None:
    time.sleep(0.05)
if p.poll() is not None:
    error("first run ended early: " + last_line(text(p.stderr.read())))
(t / "alias").symlink_to(out)
for f in out.glob(".lock"):
    f.unlink()
go2 = t / "go2"; go2.write_text("go")
q = ob([*args, "--output", t / "alias"], env={"PROBE_GO": str(go2), "PROBE_MODE": "ok"}, pythonpath=[str(site)], timeout=60)
go.write_text("go")
try:
    p.communicate(timeout=90)
except Exception:
    kill_tree(p)
if q.returncode == 0:
    broke("a second writer ran into the folder while the first held it (through a symlink, .lock deleted)")
why = one_line_error(q)
broke(why) if why else held("second writer refused: " + last_line(err_of(q))[:120])
