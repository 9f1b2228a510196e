#!/bin/bash
# area: servers/stores. usage prompt_tokens=1e400, completion_tokens=-5, NaN logprobs: stored counts sane, report + budget guard work
. "$(dirname "$0")/../lib.sh"
fake nan
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,max_retries=0,timeout=5,logprobs=true"
out=$(srun r --judge "$O" 2>&1); rc=$?; tb_check "$out"
v=$(sq r/results.sqlite "select prompt_tokens, completion_tokens from calls")
grep -qiE "inf|nan|-5|e\+" <<<"$v" && broke "stored token counts: $(echo $v | cut -c1-80)"
o2=$(ob report r --output rep --no-figures 2>&1); r2=$?; tb_check "$o2"; [ $r2 -gt 1 ] && broke "report rc=$r2"
o3=$(srun r --judge "$O" --max-total-tokens 1000 2>&1); r3=$?; tb_check "$o3"
grep -rqiE '"(prompt|completion)_tokens": *(-|Infinity|NaN)' rep 2>/dev/null && broke "report shows non-finite/negative tokens"
held "rc=$rc/$r2/$r3 tokens=$(echo $v | cut -c1-40)"
