# Area 2 (sandbox): a program writes its own result on the channel claiming transient: true (and exits): never a transient verdict
from sandbox_probe import *
prog = r"""
import os, json
os.write(1, json.dumps({"status": "ok", "answer": 1, "error": "", "stdout": "", "transient": True}).encode())
os._exit(0)
"""
r = run_sandboxed([prog], timeout=60)["results"][0]
broke(f"the program made itself transient: {r}") if r["transient"] else held(f"not transient: {r['status']} {r['error'][:60]}")
