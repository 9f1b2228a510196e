#!/bin/bash
# area: servers. 429 storm with Retry-After: 100000 -- must not sleep a day; bounded by retries.
. "$(dirname "$0")/../lib.sh"
fake s429 100000
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,max_retries=0,timeout=3"
s=$(date +%s); out=$(T=90 srun r --judge "$O" 2>&1); rc=$?; e=$(( $(date +%s)-s )); tb_check "$out"
[ $rc = 124 ] && broke "hung past 90 s on Retry-After: 100000 with max_retries=0"
[ $e -gt 30 ] && broke "took ${e}s with max_retries=0 on Retry-After: 100000"; held "${e}s rc=$rc"
