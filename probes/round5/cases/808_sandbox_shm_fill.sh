#!/bin/bash
# area: sandbox: fills /dev/shm and /tmp with 2 GB of files and a memfd
. "$(dirname "$0")/../lib.sh"
cd $T; timeout 60 python $P7/sbx.py $P7/cases/sbx/shm_fill.py > $T/res 2>$T/err; rc=$?
grep -q Traceback $T/err && broke "harness traceback: $(tail -1 $T/err)"

cat $T/res | tail -1
