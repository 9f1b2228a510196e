#!/bin/bash
# area: bad-input (binary, non-UTF-8 file given where text is expected)
. "$(dirname "$0")/../lib.sh"
head -c 3000 /dev/urandom > bin.dat
srun r >/dev/null 2>&1; expect_usage leaderboard r --output lb --carry bin.dat
