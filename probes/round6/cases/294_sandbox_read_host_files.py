#!/usr/bin/env python3
# area: sandbox; tries: read_host_files (beyond the Python install /root/.pyenv and the venv, which are documented as mounted): a model-written program run through task_configs.sandbox.run_program (timeout=3, cpu_seconds=2, memory_mb=256)
import sys, os; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import sbx
code = "import os\nfound = [p for p in ['/root/.gitconfig', '/root/.config', '/root/.claude', " + repr(os.environ['PROBE']) + ", '/work/shared', '/etc/shadow', '/work/main/README.md', '/work/main/oversight_bench', '/work/wt'] if os.path.exists(p) and (os.listdir(p) if os.path.isdir(p) else open(p).read(1))]\nresult = 'SAW ' + ','.join(found) if found else 'none'"
try:
    r, dt = sbx.run(code)
except Exception as e:
    print(f"BROKE: run_program raised {type(e).__name__}: {str(e)[:100]}"); sys.exit()
ok = r.answer == 'none'
print((f"HELD (" if ok else "BROKE: ") + f"status={r.status} transient={r.transient} answer={str(r.answer)[:60]!r} err={r.error[:60]!r} {dt:.1f}s" + (")" if ok else ""))
