#!/bin/bash
# area: lock/data-loss. salvage INTO a folder where a run is writing must be refused.
. "$(dirname "$0")/../lib.sh"
srun src >/dev/null 2>&1
fake slow 1
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=20"
ob run --judge "$O" --agent scripted:default --tasks boolq --limit 3 --protocols qa_without_article --quiet --output r >a.log 2>&1 & A=$!
sleep 2.5
out=$(ob salvage src --output r 2>&1); rc=$?
wait $A; tb_check "$out"
[ $rc = 0 ] && broke "salvage wrote into a folder being run"
held "rc=$rc $(tail -1 <<<"$out" | cut -c1-90)"
