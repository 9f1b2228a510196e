#!/bin/bash
# area: sandbox: connects to 127.0.0.1 and to a public address, sends UDP
. "$(dirname "$0")/../lib.sh"
cd $T; timeout 60 python $P7/sbx.py $P7/cases/sbx/network.py > $T/res 2>$T/err; rc=$?
grep -q Traceback $T/err && broke "harness traceback: $(tail -1 $T/err)"

cat $T/res | tail -1
