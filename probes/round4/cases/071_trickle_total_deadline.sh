#!/bin/bash
# area: servers. A server trickling 1 byte / 0.5 s under timeout=2,max_retries=1: the call must end near the deadline.
. "$(dirname "$0")/../lib.sh"
fake trickle 0.5
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=2,max_retries=1"
s=$(date +%s); out=$(T=90 srun r --judge "$O" 2>&1); rc=$?; e=$(( $(date +%s)-s ))
tb_check "$out"; [ $rc = 124 ] && broke "hung past 90 s under timeout=2"
[ $e -gt 45 ] && broke "took ${e}s under timeout=2,max_retries=1"
held "${e}s rc=$rc"
