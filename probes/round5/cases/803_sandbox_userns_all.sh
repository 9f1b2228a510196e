#!/bin/bash
# area: sandbox: unshare(CLONE_NEWUSER), clone(CLONE_NEWUSER) raw, clone3 must all fail
. "$(dirname "$0")/../lib.sh"
cd $T; timeout 60 python $P7/sbx.py $P7/cases/sbx/userns_all.py > $T/res 2>$T/err; rc=$?
grep -q Traceback $T/err && broke "harness traceback: $(tail -1 $T/err)"

cat $T/res | tail -1
