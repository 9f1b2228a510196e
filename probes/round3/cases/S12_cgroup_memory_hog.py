# Area 2 (sandbox): with the default limits (a cgroup where writable) a program exhausting its memory: memory, not transient
from sandbox_probe import *
prog = "x = []\nwhile True: x.append(bytearray(50 << 20))\n"
r = run_sandboxed([prog], timeout=90, memory_mb=128)["results"][0]
if r["transient"]: broke(f"memory exhaustion marked transient: {r}")
if r["status"] == "ok": broke("came back ok")
held(f"{r['status']}: {r['error'][:80]}")
