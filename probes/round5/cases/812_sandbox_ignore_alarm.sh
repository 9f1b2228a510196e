#!/bin/bash
# area: sandbox: ignores SIGALRM/SIGTERM, sleeps 100 s under timeout=2
. "$(dirname "$0")/../lib.sh"
cd $T; timeout 60 python $P7/sbx.py $P7/cases/sbx/ignore_alarm.py > $T/res 2>$T/err; rc=$?
grep -q Traceback $T/err && broke "harness traceback: $(tail -1 $T/err)"

cat $T/res | tail -1
