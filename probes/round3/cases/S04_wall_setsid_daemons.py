# Area 2 (sandbox): double-forked setsid children that ignore SIGTERM/SIGALRM and sleep-spin, timeout=3: the whole tree killed at the limit
from sandbox_probe import *
prog = r"""
import os, signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN); signal.signal(signal.SIGALRM, signal.SIG_IGN)
for _ in range(3):
    if os.fork() == 0:
        os.setsid()
        if os.fork(): os._exit(0)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        while True: time.sleep(0.01)
while True: time.sleep(0.01)
"""
d = run_sandboxed([prog], timeout=90, cpu_seconds=100, sbx_timeout=3)
r = d["results"][0]
if r["status"] == "ok": broke(f"came back ok: {r}")
if d["took"] > 9: broke(f"took {d['took']:.1f}s for timeout=3")
held(f"{r['status']} after {d['took']:.1f}s")
