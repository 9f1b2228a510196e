# area 8: judge --from a folder that is not a run
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp()
args = ["judge","--from","@D","--judge","scripted:default","--output","@D/out"]
args = [a.replace("@D", d) if isinstance(a, str) else a for a in args]
rc, out, err = ob(*args)
if os.path.exists(os.path.join(d, "out")) and os.listdir(os.path.join(d, "out")):
    broke("judge_from_missing: refused input but wrote " + str(os.listdir(os.path.join(d, "out"))))
check_error(rc, out, err, "judge_from_missing", must=None)
