# area 8: -o rounds=0
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp()
args = ["run","--judge","scripted:default","--agent","scripted:default","--tasks","arith","--limit","1","--output","@D/out","--quiet","-o","rounds=0"]
args = [a.replace("@D", d) if isinstance(a, str) else a for a in args]
rc, out, err = ob(*args)
if os.path.exists(os.path.join(d, "out")) and os.listdir(os.path.join(d, "out")):
    broke("option_rounds_zero: refused input but wrote " + str(os.listdir(os.path.join(d, "out"))))
check_error(rc, out, err, "option_rounds_zero", must="rounds")
