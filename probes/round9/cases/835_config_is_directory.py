# area 8: --config pointing at a directory / an empty file / a YAML list: one line each
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); open(f"{d}/empty.yaml", "w").write(""); open(f"{d}/list.yaml", "w").write("- 1\n- 2\n")
for c in (d, f"{d}/empty.yaml", f"{d}/list.yaml"):
    rc, out, err = ob("run", "--config", c, "--judge", "scripted:default", "--tasks", "arith", "--limit", "1", "--protocols", "qa_without_article", "--output", f"{d}/out")
    if "Traceback" in err or rc not in (0, 2) or (rc == 2 and len([l for l in err.splitlines() if l.strip()]) != 1):
        check_error(rc, out, err, f"--config {os.path.basename(c)}")
    if rc == 0 and c != f"{d}/empty.yaml":
        broke(f"--config {c} accepted")
    import shutil; shutil.rmtree(f"{d}/out", ignore_errors=True)
held("directory, empty and list configs handled")
