#!/bin/bash
# area: data-loss. resume a finished run with a different seed / task: refused, store byte-identical
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1; m=$(md5sum < r/results.sqlite); c=$(md5sum < r/config.json)
out=$(srun r --seed 7 2>&1); rc=$?; tb_check "$out"
[ "$m" = "$(md5sum < r/results.sqlite)" ] || broke "store changed by a refused resume (rc=$rc)"
[ "$c" = "$(md5sum < r/config.json)" ] || broke "config.json changed by a refused resume (rc=$rc)"
[ $rc = 2 ] || broke "rc=$rc"
held
