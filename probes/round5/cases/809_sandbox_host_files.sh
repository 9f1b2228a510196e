#!/bin/bash
# area: sandbox: reads host files: probe scripts, /work, /root, datasets, /etc/shadow, /proc/1/environ
. "$(dirname "$0")/../lib.sh"
cd $T; timeout 60 python $P7/sbx.py $P7/cases/sbx/host_files.py > $T/res 2>$T/err; rc=$?
grep -q Traceback $T/err && broke "harness traceback: $(tail -1 $T/err)"

cat $T/res | tail -1
