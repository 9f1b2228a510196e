#!/bin/bash
# area: stores: results.sqlite is a FIFO, a symlink to /dev/zero, a directory: every reader and resume ends quickly with one error line
. "$(dirname "$0")/../lib.sh"
bad=""
for kind in fifo zero dir; do
  run_small $T/r$kind >/dev/null 2>&1; rm -f $T/r$kind/results.sqlite
  case $kind in fifo) mkfifo $T/r$kind/results.sqlite;; zero) ln -s /dev/zero $T/r$kind/results.sqlite;; dir) mkdir $T/r$kind/results.sqlite;; esac
  for cmd in "export $T/r$kind" "report $T/r$kind --no-figures --output $T/rep$kind" "view $T/r$kind --export $T/v$kind" "salvage $T/r$kind --output $T/s$kind"; do
    OBTIMEOUT=10 ob $cmd >$T/o 2>&1; rc=$?
    grep -q Traceback $T/o && bad="$bad [$kind ${cmd%% *}: traceback $(grep -v '^ ' $T/o | tail -1 | cut -c1-60)]"
    [ $rc = 124 ] && bad="$bad [$kind ${cmd%% *}: hung 10 s]"
  done
  OBTIMEOUT=10 run_small $T/r$kind >$T/o 2>&1; rc=$?
  grep -q Traceback $T/o && bad="$bad [$kind resume: traceback]"; [ $rc = 124 ] && bad="$bad [$kind resume: hung 10 s]"
done
[ -n "$bad" ] && broke "$bad"
held
