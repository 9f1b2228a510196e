#!/bin/bash
# area: sandbox: 4 children burning CPU after the parent set SIGCHLD to SIG_IGN (kernel reaping), cpu_seconds=2 timeout=3
. "$(dirname "$0")/../lib.sh"
cd $T; timeout 60 python $P7/sbx.py $P7/cases/sbx/cpu_children.py > $T/res 2>$T/err; rc=$?
grep -q Traceback $T/err && broke "harness traceback: $(tail -1 $T/err)"

cat $T/res | tail -1
