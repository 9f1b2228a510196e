# area 7: view --host 0.0.0.0 without a token is refused in one line (exit 2)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from weblib import *
d = tmp(); run = mkrun(f"{d}/run")
rc, out, err = ob("view", run, "--host", "0.0.0.0", "--port", free_port(), timeout=20)
check_error(rc, out, err, "view on 0.0.0.0 without token", must="token")
