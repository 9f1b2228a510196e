#!/usr/bin/env python3
# area: sandbox; tries: huge_int_answer: a model-written program run through task_configs.sandbox.run_program (timeout=3, cpu_seconds=2, memory_mb=256)
import sys, os; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import sbx
code = 'result = 10 ** 100000'
try:
    r, dt = sbx.run(code)
except Exception as e:
    print(f"BROKE: run_program raised {type(e).__name__}: {str(e)[:100]}"); sys.exit()
ok = True
print((f"HELD (" if ok else "BROKE: ") + f"status={r.status} transient={r.transient} answer={str(r.answer)[:60]!r} err={r.error[:60]!r} {dt:.1f}s" + (")" if ok else ""))
