#!/bin/bash
# area: servers: 429 with Retry-After: 100000 under timeout=2, max_retries=0: no wait after the last attempt (each wait is capped at 60 s by design; not testable under 60 s)
. "$(dirname "$0")/../lib.sh"
serve retryafter 100000
s=$(date +%s); run_small $T/r --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,api_key=k,max_retries=0,timeout=2" >$T/o 2>&1; rc=$?; e=$(($(date +%s)-s))
grep -q Traceback $T/o && broke traceback
[ $rc = 124 ] && broke "Retry-After: 100000 held the run past 60 s"
held "ended in ${e}s rc=$rc"
