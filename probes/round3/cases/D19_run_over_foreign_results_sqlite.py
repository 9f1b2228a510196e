# Area 1: `run --output` a folder whose results.sqlite is a user's file (not SQLite): refused, kept.
from probe import *
t = tmpdir("d19"); out = t / "out"; out.mkdir()
(out / "results.sqlite").write_text("my spreadsheet export, not sqlite\n" * 50)
before = snapshot(out)
p = ob(["run", *SMOKE, "--output", out])
if snapshot(out) != before:
    broke("the folder changed: " + diff(before, snapshot(out)))
why = one_line_error(p)
broke(why) if why else held("refused, file kept: " + last_line(err_of(p))[:120])
