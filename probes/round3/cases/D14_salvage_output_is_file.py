# Area 1 (data loss): salvage --output naming an existing regular file
from probe import *
from foreign import check
from pathlib import Path
t = tmpdir("d14"); run = copy_run("d14"); f = t / "f.txt"; f.write_text("mine")
p = ob(["salvage", run, "--output", f])
if f.read_text() != "mine": broke("the file was overwritten")
why = one_line_error(p); broke(why) if why else held("refused: " + last_line(err_of(p))[:120])
