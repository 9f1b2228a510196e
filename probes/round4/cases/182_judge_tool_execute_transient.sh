#!/bin/bash
# area: sandbox. -o judge_tool=execute on gsm8kqa with an unusable cgroup: jobs fail in one line, not a traceback; nothing cached as a verdict
. "$(dirname "$0")/../lib.sh"
export OVERSIGHT_BENCH_CGROUP=/nonexistent/cg
out=$(T=60 ob run $SJ --tasks gsm8kqa --limit 1 --protocols qa_without_article -o judge_tool=execute --quiet --output r 2>&1); rc=$?
tb_check "$out"; [ $rc = 124 ] && broke hung
tail -50 ~/.cache/oversight-bench/gsm8kqa/sandbox_results.jsonl 2>/dev/null | grep -q "\"transient\": *true" && broke "transient result cached"
held "rc=$rc $(grep -m1 -i error <<<"$out" | cut -c1-90)"
