"""usage: sbx.py FILE [k=v...] -> prints repr of SandboxResult and elapsed"""
import sys, time
sys.path.insert(0, __import__("os").environ["PYTHONPATH"])
from task_configs.sandbox import run_program
code = open(sys.argv[1]).read()
kw = {}
for a in sys.argv[2:]:
    k, v = a.split("="); kw[k] = float(v) if "." in v else int(v)
t = time.time(); r = run_program(code, **kw); el = time.time() - t
print("STATUS=%s TRANSIENT=%s ELAPSED=%.1f ANSWER=%r ERR=%r" % (r.status, r.transient, el, r.answer, r.error[:200]))
