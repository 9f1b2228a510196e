#!/usr/bin/env bash
# a reply of 100,000-deep JSON: the job fails in one line, no traceback/RecursionError
. "$(dirname "$0")/../lib.sh"; srv deep
ob run --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=10,max_retries=0" --agent scripted:default --tasks arith --protocols qa_without_article --limit 1 --answer-order random --quiet --output "$T/o" >/dev/null 2>"$T/e"; rc=$?
grep -qE "Traceback|RecursionError" "$T/e" && broke "traceback: $(grep -v '^ ' $T/e | tail -1)"
held "rc $rc"
