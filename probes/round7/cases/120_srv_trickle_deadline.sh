#!/usr/bin/env bash
# a server trickling 1 byte / 0.3 s under timeout=2, max_retries=0: the job fails within ~timeout, not minutes
. "$(dirname "$0")/../lib.sh"; srv trickle 0.3
s=$(date +%s)
ob run --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=2,max_retries=0" --agent scripted:default --tasks arith --protocols qa_without_article --limit 1 --answer-order random --quiet --output "$T/o" >/dev/null 2>"$T/e"; rc=$?
d=$(( $(date +%s) - s ))
grep -q Traceback "$T/e" && broke traceback
[ $d -le 15 ] || broke "took $d s under timeout=2 (rc $rc)"
held "rc $rc in ${d}s"
