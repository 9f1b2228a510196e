import sys, os, time
sys.path.insert(0, os.environ.get("REPO", "/work/wt/probe"))
from task_configs import sandbox as S
def run(code, **kw):
    lim = dict(timeout=3, cpu_seconds=2, memory_mb=256, max_output=4000); lim.update(kw)
    t = time.time(); r = S.run_program(code, **lim); return r, time.time() - t
