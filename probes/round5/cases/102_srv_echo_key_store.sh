#!/bin/bash
# area: servers: server echoes Authorization + request into content: key must not reach store/export/view/samples
. "$(dirname "$0")/../lib.sh"
serve echo
run_small $T/r --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,api_key=sk-PROBE7SECRETVALUE9876,max_retries=0,timeout=5" >$T/o 2>&1
grep -q Traceback $T/o && broke "traceback"
ob export $T/r > $T/exp.jsonl 2>&1
ob view $T/r --export $T/vx >/dev/null 2>&1
hits=$(grep -rl "PROBE7SECRETVALUE9876\|ROBE7SECRETVALUE98" $T/r $T/exp.jsonl $T/vx $T/o 2>/dev/null)
[ -n "$hits" ] && broke "secret found in: $hits"
sqlite3 $T/r/results.sqlite .dump 2>/dev/null | grep -q "PROBE7SECRETVALUE" && broke "secret in sqlite dump"
held
