# area 8: export-task arith --limit 0
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp()
args = ["export-task","arith","--lm-eval","@D/out","--limit","0"]
args = [a.replace("@D", d) if isinstance(a, str) else a for a in args]
rc, out, err = ob(*args)
if os.path.exists(os.path.join(d, "out")) and os.listdir(os.path.join(d, "out")):
    broke("export_task_limit_zero: refused input but wrote " + str(os.listdir(os.path.join(d, "out"))))
check_error(rc, out, err, "export_task_limit_zero", must="limit")
