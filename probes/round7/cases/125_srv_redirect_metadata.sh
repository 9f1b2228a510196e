#!/usr/bin/env bash
# a 307 to another host: not followed with the key (no request reaches the second server carrying it)
. "$(dirname "$0")/../lib.sh"; srv echo; P2=$PORT
python "$P9/helpers/fakesrv.py" redirect "http://127.0.0.1:$P2/v1/chat/completions" >"$T/p3" 2>/dev/null & PIDS+=($!)
sleep 0.5; P3=$(head -1 $T/p3)
OPENAI_API_KEY=sk-p9redirectKEY123456 ob run --judge "openai:m,base_url=http://127.0.0.1:$P3/v1,timeout=5,max_retries=0" --agent scripted:default --tasks arith --protocols qa_without_article --limit 1 --answer-order random --quiet --output "$T/o" >/dev/null 2>"$T/e"; rc=$?
grep -q Traceback "$T/e" && broke traceback
grep -q "POST" "$T/srv.log" && { grep -rq "sk-p9redirectKEY" "$T/o" && broke "key stored after redirect"; }
held "rc $rc; followed: $(grep -c POST $T/srv.log)"
