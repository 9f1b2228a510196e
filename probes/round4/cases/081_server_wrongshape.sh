#!/bin/bash
# area: servers. Hostile server mode 'wrongshape': run must end cleanly (no traceback, not hang), exit 0/1.
. "$(dirname "$0")/../lib.sh"
fake wrongshape
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,max_retries=1,timeout=5,logprobs=true"
out=$(srun r --judge "$O" 2>&1); rc=$?; tb_check "$out"
[ $rc = 124 ] && broke "hung"; [ $rc -gt 2 ] && broke "rc=$rc: $(tail -1 <<<"$out" | cut -c1-120)"
held "rc=$rc $(tail -1 <<<"$out" | cut -c1-80)"
