#!/usr/bin/env bash
# 400/401/500 whose message echoes the key, query credential and request: not on terminal or in the store
. "$(dirname "$0")/../lib.sh"
for code in 400 401 500; do
  srv echo_err $code
  OPENAI_API_KEY=sk-p9ErrEchoKEY987654321 ob run --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1?sig=SigZZ0099887766,timeout=5,max_retries=0" --agent scripted:default --tasks arith --protocols qa_without_article --limit 1 --answer-order random --quiet --output "$T/o$code" >"$T/so" 2>"$T/se"; rc=$?
  grep -q Traceback "$T/se" && broke "$code: traceback"
  grep -rqaE "p9ErrEchoKEY|SigZZ0099887766" "$T/se" "$T/so" "$T/o$code" 2>/dev/null && broke "$code: secret shown or stored"
done
held
