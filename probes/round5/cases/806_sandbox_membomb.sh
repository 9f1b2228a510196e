#!/bin/bash
# area: sandbox: allocates 2 GB against memory_mb=128: failure of the program, not transient, quick
. "$(dirname "$0")/../lib.sh"
cd $T; timeout 60 python $P7/sbx.py $P7/cases/sbx/membomb.py > $T/res 2>$T/err; rc=$?
grep -q Traceback $T/err && broke "harness traceback: $(tail -1 $T/err)"

cat $T/res | tail -1
