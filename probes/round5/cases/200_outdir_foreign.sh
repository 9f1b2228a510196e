#!/bin/bash
# area: output-folders: report/leaderboard/salvage/view --export/judge/import/export --inspect into a folder holding a foreign file: refused (rc 2), file intact
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1 || broke "setup run failed"
python $P7/mkkhan.py $T/k.csv ok
fails=""
for c in "report $T/r --no-figures --output" "leaderboard $T/r --output" "salvage $T/r --output" "view $T/r --export" "judge --from $T/r --judge scripted:default --quiet --output" "import llm-debate $T/k.csv --output" "export $T/r --inspect" "export-task boolq --limit 2 --lm-eval"; do
  d=$T/out$RANDOM; mkdir $d; echo precious > $d/notes.txt; mkdir $d/sub; echo p2 > $d/sub/data.csv
  ob $c $d >$T/o 2>$T/e; rc=$?
  grep -q Traceback $T/e && fails="$fails [$c: traceback]"
  [ "$(cat $d/notes.txt 2>/dev/null)" = precious ] && [ "$(cat $d/sub/data.csv 2>/dev/null)" = p2 ] || fails="$fails [${c%% *}: foreign file lost]"
  case "$c" in export-task*) ;; *) [ $rc = 2 ] || fails="$fails [${c%% *} ${c#* }: accepted rc=$rc]";; esac
done
[ -n "$fails" ] && broke "$fails"
held
