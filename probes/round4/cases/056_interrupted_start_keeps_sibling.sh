#!/bin/bash
# area: data-loss. Run into new X/Y/a refused (unreachable server check) while a sibling file was put in X meanwhile.
. "$(dirname "$0")/../lib.sh"
fake slow 3
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=20,logprobs=true"
ob run --judge "$O" --agent scripted:default --tasks boolq --limit 1 --protocols qa_without_article -o judge_mode=probs --quiet --output X/Y/a >a.log 2>&1 & A=$!
sleep 1.5; mkdir -p X; echo precious > X/precious.txt; mkdir -p X/Y; echo p2 > X/Y/p2.txt
kill -INT $A 2>/dev/null; sleep 0.3; pkill -INT -P $A 2>/dev/null; wait $A; rc=$?
[ -f X/precious.txt ] || broke "interrupted run deleted X/precious.txt it did not write"
[ -f X/Y/p2.txt ] || broke "interrupted run deleted X/Y/p2.txt it did not write"
held "rc=$rc"
