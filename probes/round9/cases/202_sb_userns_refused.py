# area 2: unshare(CLONE_NEWUSER), clone(CLONE_NEWUSER) and the x32 number of unshare are refused
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sblib import *
prog = r'''
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
out = []
r = libc.syscall(272, 0x10000000); out.append((r, ctypes.get_errno()))            # unshare(CLONE_NEWUSER)
r = libc.syscall(272, 0x10000000 | 0x20000); out.append((r, ctypes.get_errno()))  # + CLONE_NEWNS
r = libc.syscall(0x40000000 + 272, 0x10000000); out.append((r, ctypes.get_errno()))  # x32 ABI number
r = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)                                   # raw clone(CLONE_NEWUSER|SIGCHLD)
if r == 0:
    os._exit(0)
out.append((r, ctypes.get_errno()))
try:
    os.unshare(os.CLONE_NEWUSER); out.append(("os.unshare", "ok"))
except AttributeError:
    out.append((-1, 'no os.unshare'))
except OSError as e:
    out.append(("os.unshare", e.errno))
ans = repr(out)
'''
(r,), wall = sandbox([prog], timeout=10)
if r["status"] != "ok":
    broke(f"program failed: {r}")
res = eval(r["answer"])
bad = [x for x in res if x[0] != -1 and x[0] != "os.unshare" or (x[0] == "os.unshare" and x[1] == "ok")]
if bad:
    broke(f"a new user namespace was allowed: {res}")
held(f"all refused: {res}")
