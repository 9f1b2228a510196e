# Area 2 (sandbox): without a writable cgroup (OVERSIGHT_BENCH_SANDBOX_LIMITS=rlimit) a program exhausting its own memory: its failure (memory/error), never transient
from sandbox_probe import *
prog = "x = []\nwhile True: x.append(bytearray(50 << 20))\n"
r = run_sandboxed([prog], env={"OVERSIGHT_BENCH_SANDBOX_LIMITS": "rlimit"}, timeout=90, memory_mb=128)["results"][0]
if r["transient"]: broke(f"own memory exhaustion marked transient: {r}")
if r["status"] == "ok": broke("came back ok")
held(f"{r['status']}: {r['error'][:80]}")
