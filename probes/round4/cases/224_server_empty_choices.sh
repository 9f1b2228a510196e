#!/bin/bash
# area: servers. 200 OK with choices: [] and with choices: null, message: null
. "$(dirname "$0")/../lib.sh"
cat > hook.py <<'PY'
import itertools
cyc = itertools.cycle([{"choices": []}, {"choices": None}, {"choices": [{"message": None}]}, {"choices": [{"message": {"content": None}}]}, {}])
def hook(h, body):
    return h.send_json(next(cyc))
PY
FAKE_HOOK=$W/hook.py fake ok
out=$(srun r --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,max_retries=1,timeout=5" --agent "openai:m,base_url=http://127.0.0.1:$PORT/v1,max_retries=1,timeout=5" --protocols qa_without_article,debate --rounds 1 --best-of-n 1 2>&1); rc=$?
tb_check "$out"; [ $rc -gt 2 ] && broke "rc=$rc"; held "rc=$rc $(tail -1 <<<"$out" | cut -c1-80)"
