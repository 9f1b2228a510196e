#!/bin/bash
# area: stores. a run whose results.json is invalid / wrong-typed / a symlink to /dev/zero: leaderboard, report, view, export: no traceback, bounded
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1 || broke setup
for v in '{"cells": 5, "version": "x"}' 'nope' 'ZERO'; do
  rm -f r/results.json; if [ "$v" = ZERO ]; then ln -s /dev/zero r/results.json; else echo "$v" > r/results.json; fi
  for cmd in "leaderboard r --output lb$RANDOM" "report r --output rep$RANDOM --no-figures" "view r --export v$RANDOM" "export r"; do
    out=$( (ulimit -v 2000000; T=30 ob $cmd) 2>&1 >/dev/null); rc=$?; tb_check "$out"; [ $rc -gt 2 ] && broke "${cmd%% *} with results.json=$v rc=$rc"
    res="$res ${cmd%% *}:$rc"
  done
done
held "$res"
