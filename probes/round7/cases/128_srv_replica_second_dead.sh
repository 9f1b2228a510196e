#!/usr/bin/env bash
# base_url=GOOD|DEAD|GOOD(dup): every job done on the live replica, exit 0
. "$(dirname "$0")/../lib.sh"; srv ok
ob run --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1|http://127.0.0.1:9/v1|http://127.0.0.1:$PORT/v1,timeout=5,max_retries=3" --agent scripted:default --tasks arith --protocols qa_without_article --limit 2 --quiet --output "$T/o" >/dev/null 2>"$T/e"; rc=$?
grep -q Traceback "$T/e" && broke traceback
[ $rc -eq 0 ] || [ $rc -eq 2 ] || broke "rc $rc: $(tail -1 $T/e)"
held "rc $rc"
