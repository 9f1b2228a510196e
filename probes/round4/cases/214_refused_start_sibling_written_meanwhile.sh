#!/bin/bash
# area: data-loss. run into new X/Y/run refused by a slow failing probe; meanwhile another process writes X/Y/other.txt and X/keep: both must survive
. "$(dirname "$0")/../lib.sh"
fake slow 3
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,logprobs=true,max_retries=0,timeout=20"
ob run --judge "$O" --agent scripted:default --tasks boolq --limit 1 --protocols qa_without_article -o judge_mode=probs --quiet --output X/Y/run >a.log 2>&1 & A=$!
sleep 1.5; mkdir -p X/Y; echo o > X/Y/other.txt; echo k > X/keep
wait $A; rc=$?; tb_check "$(cat a.log)"
[ -f X/Y/other.txt ] && [ -f X/keep ] || broke "refused start deleted files another process wrote (rc=$rc)"
held "rc=$rc $(tail -1 a.log | cut -c1-80)"
