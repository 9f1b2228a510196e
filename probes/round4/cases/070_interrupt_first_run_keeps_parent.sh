#!/bin/bash
# area: data-loss. run into pre-existing empty folder E/new is SIGTERMed at start: E and sibling survive
. "$(dirname "$0")/../lib.sh"
mkdir E; echo keep > E/sib.txt
fake stall
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=30"
ob run --judge "$O" --agent scripted:default --tasks boolq --limit 1 --protocols qa_without_article --quiet --output E/new/deeper >a.log 2>&1 & A=$!
sleep 3; kill -TERM $A; pkill -TERM -P $A; wait $A; rc=$?
[ -f E/sib.txt ] || broke "sibling lost"
held "rc=$rc; left: $(ls E | tr '\n' ' ')"
