#!/usr/bin/env bash
# two runs launched at once into one new folder: one refused (exit 2) or both finish; the store equals one run's
. "$(dirname "$0")/../lib.sh"
mkrun "$T/ref" || broke setup
( mkrun "$T/o"; echo $? > "$T/rc1" ) & a=$!
( ob run $SCR --tasks arith --protocols qa_without_article,debate --limit 2 --rounds 1 --best-of-n 1 --quiet --output "$T/o" >/dev/null 2>"$T/e2"; echo $? > "$T/rc2" ) & b=$!
wait $a $b
grep -q Traceback "$T/mkrun.err" "$T/e2" && broke traceback
n1=$(ob export "$T/ref" | wc -l); n2=$(ob export "$T/o" | wc -l)
[ "$n1" = "$n2" ] || broke "store has $n2 records, a single run $n1 (rcs $(cat $T/rc1) $(cat $T/rc2))"
held "rcs $(cat $T/rc1) $(cat $T/rc2)"
