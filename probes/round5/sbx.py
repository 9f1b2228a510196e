"""sbx.py CASEFILE: run the program in CASEFILE (python) in the project's sandbox; CASEFILE also holds
a line '#LIMITS {json}' and '#EXPECT <python expr over r (SandboxResult), el (seconds)>'."""
import sys, json, time, re
from task_configs.sandbox import run_program
src = open(sys.argv[1]).read()
lim = json.loads(re.search(r"#LIMITS (.*)", src).group(1))
exp = re.search(r"#EXPECT (.*)", src).group(1)
t = time.time(); r = run_program(src, **lim); el = time.time() - t
ok = eval(exp)
desc = f"status={r.status} transient={r.transient} answer={str(r.answer)[:60]!r} err={r.error[:80]!r} stdout={len(r.stdout)}B {el:.1f}s"
print(("HELD: " if ok else "BROKE: ") + desc)
