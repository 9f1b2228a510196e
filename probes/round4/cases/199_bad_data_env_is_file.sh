#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
echo x > f; export OVERSIGHT_BENCH_DATA=$W/f; expect_usage run $SJ --tasks boolq --limit 1 --output r
