#!/bin/bash
# area: lock. judge --output R and elo --output R while a run writes R: refused
. "$(dirname "$0")/../lib.sh"
srun src >/dev/null 2>&1 || broke setup
fake slow 1
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=20"
ob run --judge "$O" --agent scripted:default --tasks boolq --limit 3 --protocols qa_without_article --quiet --output r >a.log 2>&1 & A=$!
sleep 2.5
o1=$(ob judge --from src --judge scripted:default --output r --quiet 2>&1); r1=$?
o2=$(ob import llm-debate /dev/null --output r 2>&1); r2=$?
wait $A; tb_check "$o1$o2"
[ $r1 = 0 ] && broke "judge wrote into a folder a run was writing"
held "judge rc=$r1 import rc=$r2"
