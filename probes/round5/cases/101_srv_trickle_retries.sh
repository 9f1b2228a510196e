#!/bin/bash
# area: servers: trickle with max_retries=2, timeout=1: bounded by ~3 attempts + backoff
. "$(dirname "$0")/../lib.sh"
serve trickle 0.2
s=$(date +%s); run_small $T/r --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,api_key=k,max_retries=2,timeout=1" >$T/o 2>&1; rc=$?; e=$(($(date +%s)-s))
grep -q Traceback $T/o && broke "traceback"
[ $e -le 45 ] || broke "took ${e}s"
held "ended in ${e}s rc=$rc"
