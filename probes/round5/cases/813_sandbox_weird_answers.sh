#!/bin/bash
# area: sandbox: answer is a 100000-digit int, nan, a 50 MB string, a self-referencing list
. "$(dirname "$0")/../lib.sh"
cd $T; timeout 60 python $P7/sbx.py $P7/cases/sbx/weird_answers.py > $T/res 2>$T/err; rc=$?
grep -q Traceback $T/err && broke "harness traceback: $(tail -1 $T/err)"

cat $T/res | tail -1
