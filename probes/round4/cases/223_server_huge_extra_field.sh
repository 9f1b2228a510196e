#!/bin/bash
# area: servers/flood. a normal answer plus a 30 MB unrelated field (system_fingerprint) and 30 MB logprobs: not stored, memory bounded
. "$(dirname "$0")/../lib.sh"
cat > hook.py <<'PY'
def hook(h, body):
    c = completion("Answer: 1")
    c["system_fingerprint"] = "F" * 30000000
    c["choices"][0]["logprobs"] = {"content": [{"token": "x", "logprob": -1.0, "top_logprobs": [{"token": "y" * 100, "logprob": -2.0}] * 100000}]}
    return h.send_json(c)
PY
FAKE_HOOK=$W/hook.py fake ok
out=$( { /usr/bin/time -f 'MAXRSS=%M' nice timeout 60 python -m oversight_bench.cli run --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,max_retries=0,logprobs=true" --agent scripted:default --tasks boolq --limit 1 --protocols qa_without_article --quiet --output r; } 2>&1); rc=$?
tb_check "$out"; rss=$(grep -o 'MAXRSS=[0-9]*' <<<"$out" | cut -d= -f2); sz=$(du -sk r | cut -f1)
[ "$sz" -gt 5000 ] && broke "store ${sz} KB (rc=$rc)"; [ "${rss:-0}" -gt 600000 ] && broke "RSS ${rss} KB"
held "rc=$rc store=${sz}KB rss=${rss}KB"
