#!/bin/bash
# area: run lock; tries: while a slow run writes out/r: (python3 $P8/helpers/khan.py k.csv '[{}]') then 'import llm-debate k.csv --output out/r' must be refused
. $PROBE/lib.sh; . $P8/helpers/lock.sh
slow_run out/r
python3 $P8/helpers/khan.py k.csv '[{}]'
second_refused import llm-debate k.csv --output out/r
kill -0 $P1 2>/dev/null || { echo "HELD? first run ended before the second started (inconclusive) R2=$R2"; exit; }
wait $P1; R1=$?
grep -q Traceback e1 e2 && { echo "BROKE: traceback"; exit; }
[ $R2 = 2 ] && grep -qi '^error' e2 && [ $R1 = 0 ] && { echo "HELD ($(grep -i '^error' e2 | head -1 | cut -c1-100))"; exit; }
echo "BROKE: second writer rc=$R2 first rc=$R1: $(tail -1 e2 | cut -c1-120)"
