# area 7: serve --host 0.0.0.0 without --judges is refused in one line, nothing written
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from weblib import *
d = tmp(); run = mkrun(f"{d}/run")
rc, out, err = ob("serve", "--from", run, "--output", f"{d}/study", "--host", "0.0.0.0", "--port", free_port(), timeout=20)
if os.path.exists(f"{d}/study"):
    broke(f"refused serve wrote {os.listdir(f'{d}/study')}")
check_error(rc, out, err, "serve on 0.0.0.0 without judges", must="judges")
