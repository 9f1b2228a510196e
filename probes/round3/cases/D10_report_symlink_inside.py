# Area 1 (data loss): report --output into an earlier report folder whose report.md was replaced by a symlink to a file outside
from probe import *
from foreign import check
from pathlib import Path
t = tmpdir("d10pre"); run0 = copy_run("d10pre")
p = ob(["report", run0, "--output", t / "rep", "--no-figures"])
if p.returncode: error("first report failed: " + last_line(err_of(p)))
names = sorted(f.name for f in (t / "rep").iterdir())
target = next((n for n in names if n.endswith(".md")), names[0])
files = {str(f.relative_to(t / "rep")): f.read_bytes() for f in (t / "rep").rglob("*") if f.is_file() and f.name != target}
check(lambda run, out: ["report", run, "--output", out, "--no-figures"], files, "d10", expect_refusal=False, symlinks={target: "VICTIM"})
