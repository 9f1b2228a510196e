#!/bin/bash
# area: servers/flood. asked n=1, the server returns 20,000 choices of 1 KB (20 MB): not stored whole
. "$(dirname "$0")/../lib.sh"
cat > hook.py <<'PY'
def hook(h, body):
    c = completion("Answer: 1")
    c["choices"] = [{"index": i, "message": {"role": "assistant", "content": "Answer: 1 " + "D" * 1000}, "finish_reason": "stop"} for i in range(20000)]
    return h.send_json(c)
PY
FAKE_HOOK=$W/hook.py fake ok
out=$(srun r --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,max_retries=0" 2>&1); rc=$?; tb_check "$out"
sz=$(du -sk r | cut -f1); [ "$sz" -gt 5000 ] && broke "store ${sz} KB after 20 MB of extra choices (rc=$rc)"
held "rc=$rc store=${sz}KB"
