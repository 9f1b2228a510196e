#!/bin/bash
# area: sandbox: 8 threads in C (hashlib on big data, releasing the GIL) burn CPU: cpu_seconds=1 counted over threads
. "$(dirname "$0")/../lib.sh"
cd $T; timeout 60 python $P7/sbx.py $P7/cases/sbx/threads_cpu.py > $T/res 2>$T/err; rc=$?
grep -q Traceback $T/err && broke "harness traceback: $(tail -1 $T/err)"

cat $T/res | tail -1
