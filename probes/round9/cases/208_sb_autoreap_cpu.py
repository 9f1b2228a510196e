# area 2: children reaped by no one's wait (SA_NOCLDWAIT via sigaction through ctypes with a raw syscall)
# must still count; and if the call is refused, children burning CPU count anyway
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sblib import *
prog = r'''
import ctypes, os, time, struct
libc = ctypes.CDLL(None, use_errno=True)
# struct kernel_sigaction {handler, flags, restorer, mask}: SIG_IGN=1, SA_NOCLDWAIT=2
act = struct.pack("QQQQ", 1, 2, 0, 0)
r = libc.syscall(13, 17, act, None, 8)
err = ctypes.get_errno()
for i in range(3):
    if os.fork() == 0:
        while time.process_time() < 1.5: pass
        os._exit(0)
time.sleep(12)
ans = f"{r},{err}"
'''
(r,), wall = sandbox([prog], timeout=20, cpu_seconds=1)
if r["status"] != "timeout":
    broke(f"3 auto-reaped children burnt ~4 CPU-s under a 1 s limit: verdict {r['status']} answer {r['answer']}")
held(f"timeout: {r['error']} (sigaction result {r['answer']})")
