# Area 2 (sandbox): a program joins/creates a named session keyring (keyctl JOIN_SESSION_KEYRING) and reads the user keyring id: refused
from sandbox_probe import *
prog = r"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True); libc.syscall.restype = ctypes.c_long
a = libc.syscall(250, 1, b"probe-s06-ring"); e1 = ctypes.get_errno()
b = libc.syscall(250, 0, ctypes.c_int(-4), 1); e2 = ctypes.get_errno()
ans = f"{a} {e1} {b} {e2}"
"""
r = run_sandboxed([prog], timeout=60)["results"][0]
parts = str(r["answer"]).split()
if r["status"] == "ok" and len(parts) == 4 and (parts[0] != "-1" or parts[2] != "-1"): broke(f"keyctl allowed: {parts}")
held(f"keyctl refused: {r['answer'] or r['error'][:60]}")
