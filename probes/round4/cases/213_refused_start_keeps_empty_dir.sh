#!/bin/bash
# area: data-loss. Output folder E exists (empty, made by the user); run is refused after starting (probs probe fails): E must remain
. "$(dirname "$0")/../lib.sh"
fake ok; mkdir E
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,logprobs=true,max_retries=0"
out=$(ob run --judge "$O" --agent scripted:default --tasks boolq --limit 1 --protocols qa_without_article -o judge_mode=probs --quiet --output E 2>&1); rc=$?; tb_check "$out"
[ -d E ] || broke "refused run removed the pre-existing folder E (rc=$rc)"
held "rc=$rc left: $(ls -A E | tr '\n' ' ')"
