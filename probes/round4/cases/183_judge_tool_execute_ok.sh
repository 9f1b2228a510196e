#!/bin/bash
# area: sandbox. -o judge_tool=execute normal path (sanity): succeeds, no machine failure
. "$(dirname "$0")/../lib.sh"

out=$(T=60 ob run $SJ --tasks gsm8kqa --limit 1 --protocols qa_without_article -o judge_tool=execute --quiet --output r 2>&1); rc=$?
tb_check "$out"; [ $rc = 0 ] || broke "rc=$rc $(grep -m1 -i error <<<"$out" | cut -c1-100)"
held
