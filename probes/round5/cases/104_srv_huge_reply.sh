#!/bin/bash
# area: servers: 60 MB reply to a 24-token verdict: must fail as malformed, store stays small
. "$(dirname "$0")/../lib.sh"
serve huge 60000000
( run_small $T/r --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,api_key=sk-PROBE7SECRETVALUE9876,max_retries=0,timeout=20" >$T/o 2>&1; echo $? > $T/rc ) & p=$!
peak=0; while kill -0 $p 2>/dev/null; do m=$(ps -o rss= --ppid $(pgrep -P $p | head -1) 2>/dev/null | sort -n | tail -1); [ -n "$m" ] && [ "$m" -gt "$peak" ] && peak=$m; sleep 0.3; done
grep -q Traceback $T/o && broke "traceback"
sz=$(du -sk $T/r 2>/dev/null | cut -f1)
[ "${sz:-0}" -gt 20000 ] && broke "store ${sz} kB after a huge reply"
held "store ${sz} kB, peak rss ~${peak} kB, rc=$(cat $T/rc)"
