# Area 2 (sandbox): a program that sleeps 100 s (no CPU) with timeout=2: stopped at ~2 s
from sandbox_probe import *
d = run_sandboxed(["import time\ntime.sleep(100)\nans = 1"], timeout=90, sbx_timeout=2)
r = d["results"][0]
if r["status"] == "ok" or d["took"] > 6: broke(f"{r['status']} after {d['took']:.1f}s")
held(f"{r['status']} after {d['took']:.1f}s")
