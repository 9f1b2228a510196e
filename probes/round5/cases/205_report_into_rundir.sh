#!/bin/bash
# area: data-loss: report --output = the run folder itself; salvage --output = source; view --export = the run folder
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1
sum0=$(sha1sum $T/r/results.sqlite)
for c in "report $T/r --no-figures --output $T/r" "salvage $T/r --output $T/r" "view $T/r --export $T/r" "leaderboard $T/r --output $T/r" "judge --from $T/r --judge scripted:default --quiet --output $T/r"; do
  ob $c >$T/o 2>$T/e; rc=$?
  grep -q Traceback $T/e && broke "${c%% *}: traceback"
  [ "$(sha1sum $T/r/results.sqlite)" = "$sum0" ] || broke "${c%% *} into the run folder changed results.sqlite (rc=$rc)"
  [ $rc = 2 ] || broke "${c%% *} into the run folder accepted (rc=$rc)"
done
held
