# area 2: a program cannot set SIGCHLD to SIG_IGN (auto-reaped children would hide their CPU)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sblib import *
prog = r'''
import signal
try:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN); ans = "allowed"
except OSError as e:
    ans = f"refused {e.errno}"
'''
(r,), wall = sandbox([prog], timeout=5)
if r["answer"] == "allowed":
    broke("SIGCHLD set to SIG_IGN inside the sandbox")
held(f"{r['status']}: {r['answer']}")
