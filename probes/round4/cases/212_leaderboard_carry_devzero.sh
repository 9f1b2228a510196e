#!/bin/bash
# area: bad-input/memory. leaderboard --carry /dev/zero, view --cells /dev/zero
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1
out=$( (ulimit -v 1500000; T=30 ob leaderboard r --output lb --carry /dev/zero) 2>&1); rc=$?; tb_check "$out"; [ $rc = 124 ] && broke "--carry /dev/zero hung"; [ $rc = 2 ] || broke "--carry rc=$rc"
out=$( (ulimit -v 1500000; T=30 ob view r --export v --cells /dev/zero) 2>&1); rc=$?; tb_check "$out"; [ $rc = 124 ] && broke "--cells /dev/zero hung"; [ $rc = 2 ] || broke "--cells rc=$rc"
held
