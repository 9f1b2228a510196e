#!/bin/bash
# area: lock. Second writer through a symlink alias of the same folder.
. "$(dirname "$0")/../lib.sh"
fake slow 1
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=20"
mkdir -p real; ln -s real alias
ob run --judge "$O" --agent scripted:default --tasks boolq --limit 3 --protocols qa_without_article --quiet --output real/r >a.log 2>&1 & A=$!
sleep 2.5
out=$(ob run --judge "$O" --agent scripted:default --tasks boolq --limit 3 --protocols qa_without_article --quiet --output alias/r 2>&1); rc=$?
wait $A; tb_check "$out"
[ $rc = 0 ] && broke "second writer via symlink alias ran"
held "rc=$rc"
