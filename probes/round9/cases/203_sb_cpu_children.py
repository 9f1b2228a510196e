# area 2: CPU limit counts every process: 4 forked children each burning CPU (1 s limit)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sblib import *
prog = r'''
import os, time
pids = []
for i in range(4):
    pid = os.fork()
    if pid == 0:
        while time.process_time() < 1.2: pass
        os._exit(0)
    pids.append(pid)
for p in pids: os.waitpid(p, 0)
ans = 1
'''
(r,), wall = sandbox([prog], timeout=20, cpu_seconds=1)
if r["status"] != "timeout":
    broke(f"4 children burnt 1.2 CPU-s each under a 1 s CPU limit and the verdict is {r['status']} ({r['error']}) after {wall:.1f}s")
held(f"timeout after {wall:.1f}s: {r['error']}")
