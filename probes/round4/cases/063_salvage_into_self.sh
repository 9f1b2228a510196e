#!/bin/bash
# area: data-loss. salvage r --output r
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1; m=$(md5sum < r/results.sqlite)
out=$(ob salvage r --output r 2>&1); rc=$?; tb_check "$out"
[ "$m" = "$(md5sum < r/results.sqlite)" ] || broke "salvage into itself changed the store"
[ $rc = 0 ] && broke "salvage into itself accepted"
held "rc=$rc"
