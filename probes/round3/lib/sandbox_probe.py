"""Run programs in the project's sandbox (task_configs.sandbox.run_programs) from $REPO's code."""
import json, subprocess, time
from probe import *

DRIVER = r'''
import json, sys, time, os
from task_configs import sandbox
args = json.loads(sys.stdin.read())
t0 = time.time()
try:
    res = sandbox.run_programs(args["programs"], **args["limits"])
    out = [{"status": r.status, "answer": r.answer, "stdout": r.stdout[:300], "error": r.error[:300], "transient": r.transient} for r in res]
    print(json.dumps({"results": out, "took": time.time() - t0}))
except Exception as exc:
    print(json.dumps({"exception": f"{type(exc).__name__}: {exc}"[:400], "took": time.time() - t0}))
'''


def run_sandboxed(programs, *, env=None, timeout=120, sbx_timeout=None, **limits):
    if sbx_timeout is not None:
        limits["timeout"] = sbx_timeout
    t0 = time.time()
    try:
        p = subprocess.run([PY, "-c", DRIVER], input=json.dumps({"programs": programs, "limits": limits}), text=True,
                           capture_output=True, env=base_env(env), timeout=timeout, cwd="/tmp")
    except subprocess.TimeoutExpired:
        broke(f"the sandbox did not return within {timeout}s")
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        error("driver failed: " + last_line(p.stderr))
    d = json.loads(lines[-1])
    if "exception" in d:
        error("sandbox unavailable: " + d["exception"])
    d["wall"] = time.time() - t0
    return d
