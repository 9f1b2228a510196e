# area 2: a program flooding the result channel (10 MB) gets an error verdict, bounded, not transient
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sblib import *
prog = r'''
import os
for fd in range(3, 20):
    try:
        os.fstat(fd)
        for i in range(10): os.write(fd, b"A" * (1 << 20))
    except OSError:
        pass
ans = 1
'''
(r,), wall = sandbox([prog], timeout=10)
if r["transient"] or r["status"] == "ok" or wall > 15:
    broke(f"result flood: {r} in {wall:.1f}s")
held(f"{r['status']}: {r['error'][:80]} in {wall:.1f}s")
