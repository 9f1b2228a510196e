#!/bin/bash
# area: output-folders: outputs inside the source run folder (report/leaderboard/salvage/view --export/judge to $RUN/sub) refused; a run nested inside another run refused or harmless
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1
sum0=$(sha1sum < $T/r/results.sqlite)
bad=""
for c in "report $T/r --no-figures --output $T/r/rep" "leaderboard $T/r --output $T/r/lb" "salvage $T/r --output $T/r/s" "view $T/r --export $T/r/v" "judge --from $T/r --judge scripted:default --quiet --output $T/r/j"; do
  ob $c >$T/o 2>&1; rc=$?
  grep -q Traceback $T/o && bad="$bad [${c%% *} traceback]"
  [ $rc = 2 ] || bad="$bad [${c%% *} into the run folder accepted rc=$rc]"
done
[ "$(sha1sum < $T/r/results.sqlite)" = "$sum0" ] || bad="$bad [source store changed]"
ob report $T/r --no-figures --output $T/rep >$T/o 2>&1 || bad="$bad [source unreadable after: $(tail -1 $T/o)]"
[ -n "$bad" ] && broke "$bad"
held
