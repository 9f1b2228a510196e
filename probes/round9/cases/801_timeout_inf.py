# area 8: spec option timeout=inf must be refused
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp()
args = ["run","--judge","openai:m,base_url=http://127.0.0.1:9/v1,timeout=inf","--tasks","arith","--protocols","qa_without_article","--limit","1","--output","@D/out"]
args = [a.replace("@D", d) if isinstance(a, str) else a for a in args]
rc, out, err = ob(*args)
if os.path.exists(os.path.join(d, "out")) and os.listdir(os.path.join(d, "out")):
    broke("timeout_inf: refused input but wrote " + str(os.listdir(os.path.join(d, "out"))))
check_error(rc, out, err, "timeout_inf", must="timeout")
