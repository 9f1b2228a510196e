#!/bin/bash
# area: servers: trickle 1 byte/0.3 s under timeout=2, max_retries=0: the whole call must end near 2 s
. "$(dirname "$0")/../lib.sh"
serve trickle 0.3
s=$(date +%s); run_small $T/r --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,api_key=sk-PROBE7SECRETVALUE9876,max_retries=0,timeout=2" >$T/o 2>&1; rc=$?; e=$(($(date +%s)-s))
grep -q Traceback $T/o && broke "traceback"
[ $e -le 20 ] || broke "trickle held the run ${e}s under timeout=2 (rc=$rc)"
held "ended in ${e}s rc=$rc"
