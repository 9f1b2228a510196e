#!/bin/bash
# area: bad-input (binary, non-UTF-8 file given where text is expected)
. "$(dirname "$0")/../lib.sh"
head -c 3000 /dev/urandom > bin.dat
srun r >/dev/null 2>&1; mkdir cal; cp bin.dat cal/results.sqlite; expect_usage report r --output rep --no-figures --stance-check scripted:default --stance-calibration cal
