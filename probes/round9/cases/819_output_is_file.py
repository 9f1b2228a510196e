# area 8: --output pointing at an existing regular file
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp()
args = ["run","--judge","scripted:default","--tasks","arith","--limit","1","--output","/etc/hostname"]
args = [a.replace("@D", d) if isinstance(a, str) else a for a in args]
rc, out, err = ob(*args)
if os.path.exists(os.path.join(d, "out")) and os.listdir(os.path.join(d, "out")):
    broke("output_is_file: refused input but wrote " + str(os.listdir(os.path.join(d, "out"))))
check_error(rc, out, err, "output_is_file", must=None)
