# Area 2 (sandbox): a program calls unshare(CLONE_NEWUSER) (nested user namespace): refused
from sandbox_probe import *
prog = r"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
r = libc.unshare(0x10000000)
ans = f"{r} {ctypes.get_errno()}"
"""
r = run_sandboxed([prog], timeout=60)["results"][0]
if r["status"] == "ok" and str(r["answer"]).split()[0] == "0": broke("unshare(CLONE_NEWUSER) succeeded inside the sandbox")
held(f"refused: {r['answer'] or r['error'][:60]}")
