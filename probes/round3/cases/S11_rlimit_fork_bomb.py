# Area 2 (sandbox): without a writable cgroup a fork bomb (the process limit): its failure, never transient; bounded
from sandbox_probe import *
prog = r"""
import os
while True:
    try: os.fork()
    except OSError: pass
"""
d = run_sandboxed([prog], env={"OVERSIGHT_BENCH_SANDBOX_LIMITS": "rlimit"}, timeout=90, cpu_seconds=3, sbx_timeout=4)
r = d["results"][0]
if r["transient"]: broke(f"own process exhaustion marked transient: {r}")
if r["status"] == "ok": broke("came back ok")
if d["took"] > 15: broke(f"took {d['took']:.0f}s")
held(f"{r['status']} in {d['took']:.1f}s")
