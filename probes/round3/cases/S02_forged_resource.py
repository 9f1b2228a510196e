# Area 2 (sandbox): a program writes a result with resource: true and status memory, then kills itself: not transient (its own failure)
from sandbox_probe import *
prog = r"""
import os, json, signal
os.write(1, json.dumps({"status": "memory", "answer": None, "error": "machine out of memory", "stdout": "", "resource": True}).encode())
os.kill(os.getpid(), signal.SIGKILL)
"""
r = run_sandboxed([prog], timeout=60)["results"][0]
broke(f"treated as a machine failure: {r}") if r["transient"] else held(f"not transient: {r['status']} {r['error'][:60]}")
