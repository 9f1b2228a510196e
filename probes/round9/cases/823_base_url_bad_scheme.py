# area 8: base_url=ftp://...
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp()
args = ["run","--judge","openai:m,base_url=ftp://127.0.0.1/v1","--tasks","arith","--protocols","qa_without_article","--limit","1","--output","@D/out"]
args = [a.replace("@D", d) if isinstance(a, str) else a for a in args]
rc, out, err = ob(*args)
if os.path.exists(os.path.join(d, "out")) and os.listdir(os.path.join(d, "out")):
    broke("base_url_bad_scheme: refused input but wrote " + str(os.listdir(os.path.join(d, "out"))))
check_error(rc, out, err, "base_url_bad_scheme", must="base_url")
