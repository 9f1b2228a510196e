#!/bin/bash
# area: servers: malformed-but-JSON reply: {"choices":[{"index":0,"message":{"role":"assistant","content":12345},"finish_reason":"stop"}]}
. "$(dirname "$0")/../lib.sh"
serve raw '{"choices":[{"index":0,"message":{"role":"assistant","content":12345},"finish_reason":"stop"}]}'
run_small $T/r --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,api_key=k,max_retries=1,timeout=5" >$T/o 2>&1; rc=$?
grep -q Traceback $T/o && broke "traceback: $(grep -v '^ ' $T/o | tail -1 | cut -c1-120)"
[ $rc = 124 ] && broke hang
ob report $T/r --no-figures --output $T/rep >$T/o2 2>&1; grep -q Traceback $T/o2 && broke "report traceback"
ob view $T/r --export $T/vx >$T/o3 2>&1; grep -q Traceback $T/o3 && broke "view traceback"
held "rc=$rc $(grep -m1 '^error' $T/o | cut -c1-140)"
