# Area 2 (sandbox): program 1 leaves state wherever it can (/tmp, /dev/shm, /dev/mqueue, an abstract socket, a SysV shm segment); program 2 (run after it, one worker) finds none of it
from sandbox_probe import *
p1 = r"""
import os, socket, ctypes
left = []
for p in ("/tmp/probe-s21", "/dev/shm/probe-s21", "/dev/mqueue/probe-s21", "/tmp/work/probe-s21"):
    try: open(p, "w").write("s21"); left.append(p)
    except OSError: pass
libc = ctypes.CDLL(None, use_errno=True)
shm = libc.shmget(0x5210, 4096, 0o1666)
ans = " ".join(left) + f" shm={shm}"
"""
p2 = r"""
import os, ctypes
found = [p for p in ("/tmp/probe-s21", "/dev/shm/probe-s21", "/dev/mqueue/probe-s21", "/tmp/work/probe-s21") if os.path.exists(p)]
libc = ctypes.CDLL(None, use_errno=True)
if libc.shmget(0x5210, 0, 0) >= 0: found.append("sysv-shm")
ans = " ".join(found) or "none"
"""
d = run_sandboxed([p1, p2], timeout=90, workers=1)
r1, r2 = d["results"]
if r2["status"] == "ok" and r2["answer"] != "none": broke(f"program 2 found program 1's state: {r2['answer']}")
import glob
host = [p for p in ("/tmp/probe-s21", "/dev/shm/probe-s21") if os.path.exists(p)]
if host: broke(f"state reached the host: {host}")
held(f"p1 left {r1['answer']}; p2 found {r2['answer']}")
