#!/bin/bash
# area: combo: import (forged v_passage) -> judge --from (scripted) -> report, view, export --inspect, salvage; the forged quote is never verified downstream
. "$(dirname "$0")/../lib.sh"
python $P7/mkkhan.py $T/k.csv forged_v
ob import llm-debate $T/k.csv --output $T/i >/dev/null 2>&1 || broke "import failed"
ob judge --from $T/i --judge scripted:default --quiet --output $T/j >$T/o 2>&1; rc=$?; grep -q Traceback $T/o && broke "judge traceback"
[ $rc = 0 ] || broke "judge rc=$rc: $(tail -1 $T/o)"
for c in "report $T/j --no-figures --output $T/rep" "view $T/j --export $T/vx" "export $T/j --inspect $T/ins" "salvage $T/j --output $T/s"; do
  ob $c >$T/o 2>&1; rc=$?; grep -q Traceback $T/o && broke "${c%% *}: traceback $(grep -v '^ ' $T/o | tail -1)"; [ $rc = 0 ] || broke "${c%% *} rc=$rc: $(tail -1 $T/o)"
done
grep -rl 'v-passage"[^>]*>Ishmael' $T/vx 2>/dev/null | head -1 | grep -q . && broke "forged quote shown green in view"
python -c "
import sqlite3,sys; c=sqlite3.connect('$T/j/results.sqlite')
sys.exit(any('v_passage>Ishmael' in r for (r,) in c.execute('select request from calls')))" || broke "the judge model was sent the forged quote as verified"
ob export $T/j | grep -q '"shown": "[^"]*<v_passage>Ishmael' && broke "forged quote verified in judge output"
held
