#!/bin/bash
# area: sandbox: program prints a forged result and raises: must be error, not transient
. "$(dirname "$0")/../lib.sh"
cd $T; timeout 60 python $P7/sbx.py $P7/cases/sbx/forge_result_exc.py > $T/res 2>$T/err; rc=$?
grep -q Traceback $T/err && broke "harness traceback: $(tail -1 $T/err)"

cat $T/res | tail -1
