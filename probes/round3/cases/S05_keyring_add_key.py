# Area 2 (sandbox): a program adds a key to its uid's keyring (add_key syscall): refused; no key of a sandbox uid left in the host's /proc/keys
from sandbox_probe import *
prog = r"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
r = libc.syscall(248, b"user", b"probe-s05-key", b"secret-payload", 14, ctypes.c_int(-4))
ans = f"{r} {ctypes.get_errno()}"
"""
r = run_sandboxed([prog], timeout=60)["results"][0]
keys = open("/proc/keys").read() if os.path.exists("/proc/keys") else ""
if "probe-s05-key" in keys: broke("a sandboxed program left a key in the host keyring: " + [l for l in keys.splitlines() if "probe-s05" in l][0][:100])
ans = str(r["answer"])
if r["status"] == "ok" and not ans.startswith("-1"): broke(f"add_key succeeded inside the sandbox (returned {ans})")
held(f"add_key refused ({ans or r['error'][:60]})")
