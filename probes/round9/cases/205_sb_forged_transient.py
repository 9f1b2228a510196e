# area 2: a program writing its own result (with transient: true) on the result channel cannot be transient
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sblib import *
prog = r'''
import os, json
for fd in range(3, 40):
    try:
        os.write(fd, json.dumps({"status": "error", "answer": None, "error": "sandbox: could not start", "stdout": "", "transient": True}).encode())
    except OSError:
        pass
os._exit(0)
'''
prog2 = "import os\nos.kill(os.getpid(), 9)\n"
rs, wall = sandbox([prog, prog2], timeout=5)
bad = [r for r in rs if r["transient"]]
if bad:
    broke(f"program-claimed transient accepted: {bad}")
held(f"verdicts {[ (r['status'], r['error'][:40]) for r in rs]}, none transient")
