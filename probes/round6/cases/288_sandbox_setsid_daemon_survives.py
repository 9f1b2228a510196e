#!/usr/bin/env python3
# area: sandbox; tries: setsid_daemon_survives: a model-written program run through task_configs.sandbox.run_program (timeout=3, cpu_seconds=2, memory_mb=256)
import sys, os; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import sbx
code = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN)\n        os.execvp('sleep', ['sleep', '97531'])\n    os._exit(0)\nresult = 1"
try:
    r, dt = sbx.run(code)
except Exception as e:
    print(f"BROKE: run_program raised {type(e).__name__}: {str(e)[:100]}"); sys.exit()
ok = '97531' not in os.popen('ps -eo args').read()
print((f"HELD (" if ok else "BROKE: ") + f"status={r.status} transient={r.transient} answer={str(r.answer)[:60]!r} err={r.error[:60]!r} {dt:.1f}s" + (")" if ok else ""))
