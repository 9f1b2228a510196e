# Area 2 (sandbox): three child processes each burning CPU against cpu_seconds=2 (timeout 30): stopped at ~2 s of CPU over the tree, status timeout
from sandbox_probe import *
prog = r"""
import os
for _ in range(3):
    if os.fork() == 0:
        while True: pass
os.wait()
"""
d = run_sandboxed([prog], timeout=90, cpu_seconds=2, sbx_timeout=30)
r = d["results"][0]
if r["status"] == "ok": broke(f"came back ok: {r}")
if d["took"] > 15: broke(f"took {d['took']:.1f}s wall for cpu_seconds=2 with 3 busy children ({r['status']})")
held(f"{r['status']} after {d['took']:.1f}s: {r['error'][:70]}")
