#!/bin/bash
# area: sandbox/build-task. program exhausts its own memory (rlimit fallback): a verdict (row), not transient/retry
. "$(dirname "$0")/../lib.sh"

cat > prog.py <<'PY'
def solution():
    x = []
    while True: x.append(bytearray(1 << 24))
PY
export OVERSIGHT_BENCH_SANDBOX_LIMITS=rlimit
fake prog $W/prog.py
s=$(date +%s); out=$(T=60 ob build-task gsm8kqa --model "openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=10" --k 2 --limit 1 --output out.jsonl 2>&1); rc=$?; e=$(( $(date +%s)-s ))
tb_check "$out"; [ $rc = 124 ] && broke "build-task hung"
rows=$(cat out.jsonl 2>/dev/null)
[ -z "$rows" ] && broke "own memory exhaustion gave no verdict (treated transient)"
held "rc=$rc ${e}s $(tail -1 <<<"$out" | cut -c1-90)"
