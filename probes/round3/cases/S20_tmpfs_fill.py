# Area 2 (sandbox): a program writes 200 MB into its /tmp and /dev/shm: stopped by the caps, a program failure (not transient), host /tmp untouched
from sandbox_probe import *
prog = r"""
out = []
for p in ("/tmp/work/big", "/dev/shm/big"):
    try:
        with open(p, "wb") as f:
            for _ in range(200): f.write(b"x" * (1 << 20))
        out.append("full-write")
    except OSError as e:
        out.append("stopped")
ans = " ".join(out)
"""
r = run_sandboxed([prog], timeout=90, memory_mb=512)["results"][0]
if r["transient"]: broke(f"transient: {r}")
if "full-write" in str(r["answer"]): broke(f"wrote 200 MB: {r['answer']}")
held(f"{r['status']} {r['answer'] or r['error'][:60]}")
