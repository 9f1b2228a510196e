# area 8: view --port 70000
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp()
args = ["view","/tmp","--port","70000"]
args = [a.replace("@D", d) if isinstance(a, str) else a for a in args]
rc, out, err = ob(*args)
if os.path.exists(os.path.join(d, "out")) and os.listdir(os.path.join(d, "out")):
    broke("view_port_bad: refused input but wrote " + str(os.listdir(os.path.join(d, "out"))))
check_error(rc, out, err, "view_port_bad", must="port")
