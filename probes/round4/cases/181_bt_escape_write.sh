#!/bin/bash
# area: sandbox/build-task. program tries to write to the host (/work, cwd, /proc/1/root) and read env secrets
. "$(dirname "$0")/../lib.sh"

cat > prog.py <<PY
import os
def solution():
    for p in ["$P6/PWNED1", "PWNED2", "/proc/1/root$P6/PWNED3", "/proc/1/cwd/PWNED4"]:
        try: open(p, "w").write("x")
        except Exception: pass
    return str(dict(os.environ))[:900]
PY
export OPENAI_API_KEY=sk-BuildTaskEnvSecret123456
fake prog $W/prog.py
s=$(date +%s); out=$(T=60 ob build-task gsm8kqa --model "openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=10" --k 2 --limit 1 --output out.jsonl 2>&1); rc=$?; e=$(( $(date +%s)-s ))
tb_check "$out"; [ $rc = 124 ] && broke "build-task hung"
rows=$(cat out.jsonl 2>/dev/null)
ls $P6/PWNED* 2>/dev/null && broke "sandbox wrote to host"; leakscan BuildTaskEnvSecret123456 out.jsonl
held "rc=$rc ${e}s $(tail -1 <<<"$out" | cut -c1-90)"
