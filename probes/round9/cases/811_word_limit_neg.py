# area 8: --word-limit -1
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp()
args = ["run","--judge","scripted:default","--agent","scripted:default","--tasks","arith","--limit","1","--output","@D/out","--quiet","--word-limit","-1"]
args = [a.replace("@D", d) if isinstance(a, str) else a for a in args]
rc, out, err = ob(*args)
if os.path.exists(os.path.join(d, "out")) and os.listdir(os.path.join(d, "out")):
    broke("word_limit_neg: refused input but wrote " + str(os.listdir(os.path.join(d, "out"))))
check_error(rc, out, err, "word_limit_neg", must="word")
