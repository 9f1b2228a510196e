#!/bin/bash
# area: data loss; tries: two runs into new runs/X/one and runs/X/two in parallel; the second is SIGINT'ed at once: the first's finished run is kept
. $PROBE/lib.sh
( OB run $SJ --tasks arith --limit 2 --protocols qa_without_article,debate --output runs/X/one --quiet >o1 2>e1 ) &
p1=$!
OB run $SJ --tasks arith --limit 40 --output runs/X/two --quiet >o2 2>e2 & p2=$!
sleep 0.8; kill -INT $p2 2>/dev/null; pkid=$(pgrep -P $p2); [ -n "$pkid" ] && kill -INT $pkid 2>/dev/null
wait $p1; r1=$?; wait $p2; r2=$?
grep -q Traceback e2 && { echo "BROKE: interrupted run traceback"; exit; }
[ $r1 = 0 ] && [ -f runs/X/one/results.sqlite ] || { echo "BROKE: first run lost (r1=$r1, $(ls runs/X 2>&1))"; exit; }
echo "HELD (r1=$r1 r2=$r2; runs/X: $(ls runs/X | tr '\n' ' '))"
