#!/usr/bin/env bash
# run (seed 0) into NEW and salvage of a seed-7 run into NEW at once: never a mixed store
. "$(dirname "$0")/../lib.sh"
mkrun "$T/src" --seed 7 || broke setup
mkrun "$T/ref" || broke setup
( mkrun "$T/new"; echo $? > "$T/rc1" ) & a=$!
( ob salvage "$T/src" --output "$T/new" >/dev/null 2>"$T/e2"; echo $? > "$T/rc2" ) & b=$!
wait $a $b
grep -q Traceback "$T/mkrun.err" "$T/e2" && broke "traceback: $(grep -h -v '^ ' $T/mkrun.err $T/e2 | tail -1)"
r1=$(cat $T/rc1); r2=$(cat $T/rc2)
[ "$r1" = 0 ] && [ "$r2" = 0 ] && broke "both run and salvage of another identity wrote into one folder"
ob export "$T/new" 2>/dev/null | python -c "import sys,json; print(len([l for l in sys.stdin]))" > "$T/n"
held "rcs $r1 $r2, $(cat $T/n) records"
