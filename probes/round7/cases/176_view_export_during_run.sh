#!/usr/bin/env bash
# view --export and export read a run while it is being written (slow server): no traceback, run unharmed
. "$(dirname "$0")/../lib.sh"; srv trickle 0.01
S="openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=30,max_retries=0"
ob run --judge "$S" --agent scripted:default --tasks arith --protocols qa_without_article --limit 3 --quiet --output "$T/o" >/dev/null 2>"$T/e1" & a=$!
for i in $(seq 40); do [ -e "$T/o/results.sqlite" ] && break; sleep 0.2; done; sleep 0.5
ob view --export "$T/site" "$T/o" >/dev/null 2>"$T/e2"; r2=$?
ob export "$T/o" >/dev/null 2>"$T/e3"; r3=$?
wait $a; r1=$?
grep -q Traceback "$T/e1" "$T/e2" "$T/e3" && broke "traceback: $(grep -h -v '^ ' $T/e2 $T/e3 | tail -1)"
[ $r1 -eq 0 ] || broke "the run failed (rc $r1) while read: $(tail -1 $T/e1)"
held "view rc $r2 export rc $r3"
