#!/usr/bin/env bash
# a gzip bomb (300 MB inflated from ~300 KB): bounded by the decoded size, not the wire size
. "$(dirname "$0")/../lib.sh"; srv gzipbomb 300
/usr/bin/time -f %M -o "$T/rss" python -m oversight_bench.cli run --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,timeout=20,max_retries=0" --agent scripted:default --tasks arith --protocols qa_without_article --limit 1 --answer-order random --quiet --output "$T/o" >/dev/null 2>"$T/e"; rc=$?
grep -q Traceback "$T/e" && broke traceback
sz=$(du -sk "$T/o" | cut -f1); rss=$(tail -1 "$T/rss")
[ "$sz" -lt 5000 ] || broke "store ${sz} KB"
[ "$rss" -lt 500000 ] || broke "peak RSS ${rss} KB after a gzip bomb"
held "rc $rc store ${sz}KB rss ${rss}KB"
