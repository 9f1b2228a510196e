#!/bin/bash
# area: lock. Two runs into the same folder at once: the second must be refused, not run beside.
. "$(dirname "$0")/../lib.sh"
fake slow 1
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=20"
ob run --judge "$O" --agent scripted:default --tasks boolq --limit 3 --protocols qa_without_article --quiet --output r >a.log 2>&1 & A=$!
sleep 2.5
out=$(ob run --judge "$O" --agent scripted:default --tasks boolq --limit 3 --protocols qa_without_article --quiet --output r 2>&1); rc=$?
wait $A; tb_check "$out"
[ $rc = 0 ] && broke "second writer ran beside the first: $(tail -1 <<<"$out")"
held "rc=$rc $(tail -1 <<<"$out" | cut -c1-90)"
