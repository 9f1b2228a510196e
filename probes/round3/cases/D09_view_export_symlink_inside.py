# Area 1 (data loss): view --export into an earlier export whose view.css was replaced by a symlink to a file outside
from probe import *
from foreign import check
import shutil
from pathlib import Path
t = tmpdir("d09pre"); run0 = copy_run("d09pre")
p = ob(["view", run0, "--export", t / "site"]);
if p.returncode: error("first export failed: " + last_line(err_of(p)))
files = {str(f.relative_to(t / "site")): f.read_bytes() for f in (t / "site").rglob("*") if f.is_file() and f.name != "view.css"}
check(lambda run, out: ["view", run, "--export", out], files, "d09", expect_refusal=False, symlinks={"view.css": "VICTIM"})
