# area 2: a program ignoring SIGALRM and sleeping is still stopped near its wall limit (1 s)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sblib import *
prog = "import signal, time\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nsignal.setitimer(signal.ITIMER_REAL, 0)\ntime.sleep(30)\nans = 1\n"
(r,), wall = sandbox([prog], timeout=1, cpu_seconds=5)
if r["status"] != "timeout" or wall > 6:
    broke(f"status {r['status']} after {wall:.1f}s with timeout=1")
held(f"timeout after {wall:.1f}s")
