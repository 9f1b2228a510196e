#!/usr/bin/env bash
# salvage / report / export of a run whose results.sqlite is a FIFO, a folder, a symlink to /dev/zero, or empty
. "$(dirname "$0")/../lib.sh"
for kind in fifo dir zero empty; do
  mkrun "$T/$kind" || broke setup; rm "$T/$kind/results.sqlite"
  case $kind in fifo) mkfifo "$T/$kind/results.sqlite";; dir) mkdir "$T/$kind/results.sqlite";; zero) ln -s /dev/zero "$T/$kind/results.sqlite";; empty) : > "$T/$kind/results.sqlite";; esac
  for c in "salvage $T/$kind --output $T/s_$kind" "export $T/$kind" "report $T/$kind --output $T/rep_$kind --no-figures"; do
    OBT=20 ob $c >/dev/null 2>"$T/e"; rc=$?
    [ $rc -eq 124 ] && broke "$kind: ${c%% *} hangs"
    grep -q Traceback "$T/e" && broke "$kind: ${c%% *} traceback: $(grep -v '^ ' $T/e | tail -1)"
    [ $rc -eq 2 ] || [ $rc -eq 0 ] || broke "$kind: ${c%% *} rc $rc"
  done
done
held
