#!/bin/bash
# area: servers. A server that never answers, timeout=1,max_retries=0
. "$(dirname "$0")/../lib.sh"
fake stall
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=1,max_retries=0"
s=$(date +%s); out=$(T=90 srun r --judge "$O" 2>&1); rc=$?; e=$(( $(date +%s)-s ))
tb_check "$out"; [ $rc = 124 ] && broke "hung past 90 s"; [ $e -gt 30 ] && broke "took ${e}s under timeout=1"
held "${e}s rc=$rc"
