#!/bin/bash
# area: output folders / data loss; tries: 'leaderboard out/r --output D' where D holds an unrelated file and a subfolder: refused, nothing touched
. $PROBE/lib.sh; mkrun out/r; python3 $P8/helpers/khan.py k.csv '[{}]'
mkdir -p D/sub; echo precious > D/notes.txt; echo deep > D/sub/x.txt; h=$(find D -type f | sort | xargs md5sum | md5sum)
OB leaderboard out/r --output D >o 2>e; rc=$?
h2=$(find D -type f | sort | xargs md5sum | md5sum); n=$(find D | wc -l)
grep -q Traceback e && { echo "BROKE: traceback $(tail -1 e)"; exit; }
[ "$h" != "$h2" ] && { echo "BROKE: D's files changed"; exit; }
[ $rc = 2 ] && [ $n = 4 ] && { echo "HELD (refused: $(head -1 e | cut -c1-90))"; exit; }
echo "BROKE: rc=$rc, D now has $n entries (wrote beside a foreign file)"
