# Area 1: `run --output` a user's project folder that happens to hold a config.json (not a run's)
# and other files: refused in one line, nothing written, removed or changed.
from probe import *
t = tmpdir("d15"); out = t / "proj"; out.mkdir()
(out / "config.json").write_text('{"name": "my web app", "port": 8080}')
(out / "main.py").write_text("print('mine')")
before = snapshot(out)
p = ob(["run", *SMOKE, "--output", out])
if snapshot(out) != before:
    broke("the user's folder changed: " + diff(before, snapshot(out)) + f" (rc {p.returncode})")
why = one_line_error(p)
broke(why) if why else held("refused: " + last_line(err_of(p))[:140])
