#!/usr/bin/env bash
# delete every lock-looking file while a slow run holds the folder: a second writer is still refused
. "$(dirname "$0")/../lib.sh"; srv trickle 0.05
S="openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=30,max_retries=0"
ob run --judge "$S" --agent scripted:default --tasks arith --protocols qa_without_article --limit 3 --quiet --output "$T/o" >/dev/null 2>"$T/e1" & a=$!
for i in $(seq 40); do [ -e "$T/o/results.sqlite" ] && break; sleep 0.25; done
sleep 1
find "$T/o" -name '*lock*' -exec rm -f {} + 2>/dev/null
ob run --judge "$S" --agent scripted:default --tasks arith --protocols qa_without_article --limit 3 --quiet --output "$T/o" >/dev/null 2>"$T/e2"; rc=$?
kill $a 2>/dev/null; wait $a 2>/dev/null
grep -q Traceback "$T/e2" && broke traceback
[ $rc -eq 2 ] || broke "second writer after lock-file removal: rc $rc: $(tail -1 $T/e2)"
held
