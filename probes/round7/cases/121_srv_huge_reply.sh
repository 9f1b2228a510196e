#!/usr/bin/env bash
# a 40 MB reply to a 24-token verdict: the call fails as malformed; the store stays small
. "$(dirname "$0")/../lib.sh"; srv huge 40
/usr/bin/time -f %M -o "$T/rss" python -m oversight_bench.cli run --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=20,max_retries=0" --agent scripted:default --tasks arith --protocols qa_without_article --limit 1 --answer-order random --quiet --output "$T/o" >/dev/null 2>"$T/e"; rc=$?
grep -q Traceback "$T/e" && broke traceback
sz=$(du -sk "$T/o" | cut -f1); rss=$(tail -1 "$T/rss")
[ "$sz" -lt 5000 ] || broke "store ${sz} KB after a 40 MB reply"
[ "$rss" -lt 400000 ] || broke "peak RSS ${rss} KB"
held "rc $rc store ${sz}KB rss ${rss}KB"
