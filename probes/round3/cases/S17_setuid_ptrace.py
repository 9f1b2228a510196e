# Area 2 (sandbox): a program tries setuid(0), setgid(0), and ptrace-attaching pid 1: all refused
from sandbox_probe import *
prog = r"""
import os, ctypes
out = []
for f in (lambda: os.setuid(0), lambda: os.setgid(0)):
    try: f(); out.append("ok")
    except OSError as e: out.append("no")
libc = ctypes.CDLL(None, use_errno=True)
out.append(str(libc.ptrace(16, 1, 0, 0)))
ans = " ".join(out)
"""
r = run_sandboxed([prog], timeout=60)["results"][0]
a = str(r["answer"])
if "ok" in a.split()[:2] or a.split()[-1] == "0": broke(f"privilege gained: {a}")
held(f"{a}")
