#!/bin/bash
# area: lock. Delete every dotfile in the run folder during a run, then start a second writer.
. "$(dirname "$0")/../lib.sh"
fake slow 1
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=20"
ob run --judge "$O" --agent scripted:default --tasks boolq --limit 3 --protocols qa_without_article --quiet --output r >a.log 2>&1 & A=$!
sleep 2.5; rm -f r/.lock r/.[!.]* 2>/dev/null
out=$(ob run --judge "$O" --agent scripted:default --tasks boolq --limit 3 --protocols qa_without_article --quiet --output r 2>&1); rc=$?
wait $A; tb_check "$out"
[ $rc = 0 ] && broke "second writer ran after lock files deleted"
n=$(grep -c . fake.log); held "rc=$rc"
