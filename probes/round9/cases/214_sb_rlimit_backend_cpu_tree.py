# area 2: with the rlimit fallback (no cgroup), CPU over every process still counts: 3 children x 1.2 CPU-s, limit 1 s;
# and a child that calls setsid() and re-parents to the sandbox's init still counts
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sblib import *
prog = r'''
import os, time
for i in range(3):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            while time.process_time() < 1.2: pass
            os._exit(0)
        os._exit(0)
time.sleep(15)
ans = 1
'''
(r,), wall = sandbox([prog], _env={"OVERSIGHT_BENCH_SANDBOX_LIMITS": "rlimit"}, timeout=20, cpu_seconds=1)
if r["status"] != "timeout":
    broke(f"rlimit backend: orphaned grandchildren burnt 3.6 CPU-s under a 1 s limit: verdict {r['status']} {r['error']}")
held(f"timeout after {wall:.1f}s: {r['error']}")
