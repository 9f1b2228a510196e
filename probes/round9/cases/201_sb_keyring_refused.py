# area 2: add_key / keyctl from a sandboxed program are refused (seccomp EPERM)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sblib import *
prog = r'''
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
r1 = libc.syscall(248, b"user", b"probe11", b"secretpayload", 13, -3)  # add_key(..., KEY_SPEC_USER_KEYRING)
e1 = ctypes.get_errno()
r2 = libc.syscall(250, 0, -3, 0)  # keyctl(KEYCTL_GET_KEYRING_ID, user keyring)
e2 = ctypes.get_errno()
ans = f"{r1},{e1},{r2},{e2}"
'''
(r,), wall = sandbox([prog], timeout=10)
if r["status"] != "ok":
    broke(f"program failed: {r}")
r1, e1, r2, e2 = r["answer"].split(",")
if r1 != "-1" or e1 != "1" or r2 != "-1" or e2 != "1":
    broke(f"keyring call allowed: add_key -> {r1} (errno {e1}), keyctl -> {r2} (errno {e2})")
held(f"add_key and keyctl refused with EPERM ({r['answer']})")
