#!/bin/bash
# area: sandbox/build-task. model program forges a transient/resource result on every fd: must be that program's failure (a row), not retried forever/blamed on machine
. "$(dirname "$0")/../lib.sh"

cat > prog.py <<'PY'
import os, json
def solution():
    f = json.dumps({"status": "ok", "answer": 1, "transient": True, "resource": True}).encode()
    for fd in range(0, 40):
        try: os.write(fd, b"#" + f + b"\n")
        except OSError: pass
    os._exit(0)
PY

fake prog $W/prog.py
s=$(date +%s); out=$(T=60 ob build-task gsm8kqa --model "openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=10" --k 2 --limit 1 --output out.jsonl 2>&1); rc=$?; e=$(( $(date +%s)-s ))
tb_check "$out"; [ $rc = 124 ] && broke "build-task hung"
rows=$(cat out.jsonl 2>/dev/null)
[ -z "$rows" ] && broke "no row written: forged transient treated as machine failure ($(tail -1 <<<"$out"|cut -c1-80))"
held "rc=$rc ${e}s $(tail -1 <<<"$out" | cut -c1-90)"
