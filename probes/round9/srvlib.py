"""Hostile-server harness: run one tiny job against a misbehaving fake server; bounded time, no traceback."""
import os, sys, time, resource
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import *


def server_case(name, reply, limit_s=40, extra_spec="", check=None):
    srv = FakeOpenAI(reply=reply)
    d = tmp()
    t = time.time()
    rc, out, err = ob("run", "--judge", srv.spec(extra_spec), "--tasks", "arith", "--protocols", "qa_without_article",
                      "--limit", 1, "--answer-order", "random", "--output", f"{d}/run", "--quiet", timeout=limit_s + 30)
    wall = time.time() - t
    srv.close()
    if rc == "TIMEOUT":
        broke(f"{name}: the run did not end within {limit_s + 30}s (spec timeout=5, max_retries=0)")
    if "Traceback" in err:
        broke(f"{name}: traceback: {[l for l in err.splitlines() if l.strip()][-1:]}")
    if wall > limit_s:
        broke(f"{name}: took {wall:.0f}s with timeout=5,max_retries=0")
    if check:
        check(rc, out, err, d, wall)
    held(f"{name}: rc={rc} in {wall:.1f}s; {([l for l in err.splitlines() if l.strip()] or [''])[-1][:160]}")
