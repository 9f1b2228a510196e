#!/bin/bash
# area: bad-input/memory. serve --judges-file /dev/zero: a bounded read, one-line error (run under a 1.5 GB address-space cap)
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1
out=$( (ulimit -v 1500000; T=30 ob serve --from r --output st --judges-file /dev/zero) 2>&1); rc=$?
tb_check "$out"; [ $rc = 124 ] && broke "read /dev/zero for 30 s (unbounded read)"; [ $rc = 2 ] || broke "rc=$rc"
held "$(grep -m1 error: <<<"$out" | cut -c1-80)"
