#!/bin/bash
# area: servers/secrets. Server returns the key base64'd, reversed-case, and split by spaces.
. "$(dirname "$0")/../lib.sh"
cat > hook.py <<'PY'
import base64
def hook(h, body):
    k = h.headers.get("Authorization", "")[7:]
    return h.send_json(completion("Answer: 1 ECHO " + base64.b64encode(k.encode()).decode() + " | " + k.swapcase() + " | " + " ".join(k)))
PY
FAKE_HOOK=$W/hook.py fake ok
export OPENAI_API_KEY=sk-B64SplitSecret778899
O="openai:m,base_url=http://127.0.0.1:$PORT/v1"
out=$(srun r --judge "$O" 2>&1); rc=$?; tb_check "$out"; ob export r > e.jsonl 2>&1
grep -q ECHO e.jsonl || broke "setup: echo not stored"
grep -q "Answer" e.jsonl || broke "setup: nothing exported rc=$rc $(tail -1 <<<"$out")"
leakscan B64SplitSecret778899 r e.jsonl; leakscan "$(printf sk-B64SplitSecret778899 | base64)" r e.jsonl
grep -qa "B 6 4 S p l i t S e c r e t" r/results.sqlite e.jsonl && broke "space-split key stored"
held "rc=$rc"
