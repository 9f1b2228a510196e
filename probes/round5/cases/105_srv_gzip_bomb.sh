#!/bin/bash
# area: servers: gzip bomb (200 MB expands from ~200 kB)
. "$(dirname "$0")/../lib.sh"
serve gzipbomb 200000000
/usr/bin/time -v -o $T/tv python -m oversight_bench.cli run --judge "openai:m,base_url=http://127.0.0.1:$PORT/v1,api_key=sk-PROBE7SECRETVALUE9876,max_retries=0,timeout=20" --tasks boolq --protocols qa_without_article --limit 1 --quiet --output $T/r >$T/o 2>&1
rss=$(grep Maximum $T/tv | awk '{print $NF}')
grep -q Traceback $T/o && broke "traceback"
sz=$(du -sk $T/r | cut -f1)
[ "$sz" -gt 20000 ] && broke "store $sz kB"
[ "$rss" -gt 700000 ] && broke "peak RSS $rss kB for a gzip bomb"
held "rss $rss kB, store $sz kB"
