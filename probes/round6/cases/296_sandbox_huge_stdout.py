#!/usr/bin/env python3
# area: sandbox; tries: huge_stdout: a model-written program run through task_configs.sandbox.run_program (timeout=3, cpu_seconds=2, memory_mb=256)
import sys, os; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import sbx
code = "import sys\nfor _ in range(2000): print('x' * 100000)\nresult = 1"
try:
    r, dt = sbx.run(code)
except Exception as e:
    print(f"BROKE: run_program raised {type(e).__name__}: {str(e)[:100]}"); sys.exit()
ok = len(r.stdout) <= 10000 and dt < 8
print((f"HELD (" if ok else "BROKE: ") + f"status={r.status} transient={r.transient} answer={str(r.answer)[:60]!r} err={r.error[:60]!r} {dt:.1f}s" + (")" if ok else ""))
