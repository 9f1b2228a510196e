#!/bin/bash
# area: output-folders: report --output is a symlink to a non-empty foreign folder; and a dangling symlink
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1
mkdir $T/foreign; echo keep > $T/foreign/k; ln -s $T/foreign $T/link; ln -s $T/nowhere $T/dang
ob report $T/r --no-figures --output $T/link >$T/o 2>$T/e; rc=$?
grep -q Traceback $T/e && broke "traceback (symlink)"
[ "$(cat $T/foreign/k)" = keep ] || broke "foreign file lost through symlink"
[ $rc = 2 ] || broke "report into symlinked foreign folder rc=$rc"
ob report $T/r --no-figures --output $T/dang >$T/o 2>$T/e; rc=$?
grep -q Traceback $T/e && broke "traceback (dangling): $(tail -1 $T/e)"
held "dangling rc=$rc"
