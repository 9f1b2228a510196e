#!/usr/bin/env python3
# area: sandbox; tries: keyring_add_key: a model-written program run through task_configs.sandbox.run_program (timeout=3, cpu_seconds=2, memory_mb=256)
import sys, os; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import sbx
code = "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nr = libc.syscall(248, b'user', b'p8probe', b'secretdata', 10, -5)\nresult = 'ADDED' if r >= 0 else 'refused %d' % ctypes.get_errno()"
try:
    r, dt = sbx.run(code)
except Exception as e:
    print(f"BROKE: run_program raised {type(e).__name__}: {str(e)[:100]}"); sys.exit()
ok = r.answer != 'ADDED'
print((f"HELD (" if ok else "BROKE: ") + f"status={r.status} transient={r.transient} answer={str(r.answer)[:60]!r} err={r.error[:60]!r} {dt:.1f}s" + (")" if ok else ""))
