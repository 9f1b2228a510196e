#!/bin/bash
# area: stores: hostile-but-valid store (turn_shown_obj) read by salvage, report, view --export, export, resume: no traceback
. "$(dirname "$0")/../lib.sh"
run_small $T/r --protocols qa_without_article,debate >/dev/null 2>&1 || broke "setup"
python $P7/mutstore.py $T/r/results.sqlite turn_shown_obj
bad=""
for c in "salvage $T/r --output $T/s" "report $T/r --no-figures --output $T/rep" "view $T/r --export $T/vx" "export $T/r" "export $T/r --preferences"; do
  eval ob $c >$T/o 2>$T/e; rc=$?
  grep -q Traceback $T/e $T/o && bad="$bad [${c%% *}: traceback $(grep -v '^ ' $T/e | tail -1 | cut -c1-100)]"
  [ $rc = 124 ] && bad="$bad [${c%% *}: timeout]"
done
run_small $T/r --protocols qa_without_article,debate >$T/o 2>&1; rc=$?
grep -q Traceback $T/o && bad="$bad [resume: traceback $(grep -v '^ ' $T/o | tail -1 | cut -c1-100)]"
grep -rl "<script>alert\|<img src=x\|<b onmouseover" $T/vx 2>/dev/null | head -1 | grep -q . && bad="$bad [view: unescaped HTML]"
[ -n "$bad" ] && broke "$bad"
held
