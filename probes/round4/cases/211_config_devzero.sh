#!/bin/bash
# area: bad-input/memory. --config /dev/zero and --include-path with a FIFO yaml: bounded, one line
. "$(dirname "$0")/../lib.sh"
out=$( (ulimit -v 1500000; T=30 ob run $SJ --config /dev/zero --output r) 2>&1); rc=$?; tb_check "$out"
[ $rc = 124 ] && broke "config /dev/zero read for 30 s"; [ $rc = 2 ] || broke "rc=$rc"
held "$(grep -m1 error: <<<"$out" | cut -c1-80)"
