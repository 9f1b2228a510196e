#!/bin/bash
# area: output-folders: --output is an existing regular file (run, report, salvage, judge, import, leaderboard, view --export): rc 2, file intact
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1; python $P7/mkkhan.py $T/k.csv ok
echo precious > $T/f
bad=""
for c in "run --judge scripted:default --tasks boolq --protocols qa_without_article --limit 1 --quiet --output" "report $T/r --no-figures --output" "salvage $T/r --output" "judge --from $T/r --judge scripted:default --quiet --output" "import llm-debate $T/k.csv --output" "leaderboard $T/r --output" "view $T/r --export" "export $T/r --inspect"; do
  ob $c $T/f >$T/o 2>&1; rc=$?
  grep -q Traceback $T/o && bad="$bad [${c%% *} traceback]"
  [ $rc = 2 ] || bad="$bad [${c%% *} rc=$rc]"
  [ "$(cat $T/f)" = precious ] || { bad="$bad [${c%% *} overwrote the file]"; echo precious > $T/f; }
done
[ -n "$bad" ] && broke "$bad"
held
