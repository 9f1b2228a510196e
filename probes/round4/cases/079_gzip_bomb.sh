#!/bin/bash
# area: servers/flood. gzip bomb: 200 KB on the wire, 200 MB decoded.
. "$(dirname "$0")/../lib.sh"
fake gzipbomb 200000000
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,max_retries=0"
out=$( { /usr/bin/time -f 'MAXRSS=%M' nice timeout 60 python -m oversight_bench.cli run --judge "$O" --agent scripted:default --tasks boolq --limit 1 --protocols qa_without_article --quiet --output r; } 2>&1); rc=$?
tb_check "$out"; [ $rc = 124 ] && broke "hung"; rss=$(grep -o 'MAXRSS=[0-9]*' <<<"$out" | cut -d= -f2)
[ "${rss:-0}" -gt 400000 ] && broke "max RSS ${rss} KB after gzip bomb"
sz=$(du -sk r 2>/dev/null | cut -f1); [ "${sz:-0}" -gt 5000 ] && broke "store ${sz} KB"
held "rc=$rc rss=${rss}KB"
