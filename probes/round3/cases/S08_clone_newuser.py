# Area 2 (sandbox): a program calls clone(CLONE_NEWUSER|SIGCHLD) and clone3 directly: refused (clone3 ENOSYS)
from sandbox_probe import *
prog = r"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True); libc.syscall.restype = ctypes.c_long
r = libc.syscall(56, ctypes.c_ulong(0x10000000 | 17), 0, 0, 0, 0); e = ctypes.get_errno()
if r == 0: os._exit(0)
class A(ctypes.Structure): _fields_ = [(n, ctypes.c_uint64) for n in ("flags","pidfd","child_tid","parent_tid","exit_signal","stack","stack_size","tls")]
a = A(flags=0x10000000, exit_signal=17)
r3 = libc.syscall(435, ctypes.byref(a), ctypes.sizeof(a)); e3 = ctypes.get_errno()
if r3 == 0: os._exit(0)
ans = f"{r} {e} {r3} {e3}"
"""
r = run_sandboxed([prog], timeout=60)["results"][0]
p = str(r["answer"]).split()
if r["status"] == "ok" and len(p) == 4 and (int(p[0]) > 0 or int(p[2]) > 0): broke(f"a new user namespace was cloned: {p}")
held(f"refused: {r['answer'] or r['error'][:60]}")
