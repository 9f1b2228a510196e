#!/usr/bin/env bash
# every answer a 429 with Retry-After 0, max_retries=2: jobs fail (exit 1) quickly, no traceback
. "$(dirname "$0")/../lib.sh"; srv 429 0
s=$(date +%s)
ob run --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=5,max_retries=2" --agent scripted:default --tasks arith --protocols qa_without_article --limit 2 --quiet --output "$T/o" >/dev/null 2>"$T/e"; rc=$?
d=$(( $(date +%s) - s ))
grep -q Traceback "$T/e" && broke traceback
[ $rc -eq 1 ] || broke "rc $rc"
[ $d -le 30 ] || broke "took $d s"
held "rc $rc ${d}s"
