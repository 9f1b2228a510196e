#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1; expect_usage judge --from r --judge scripted:default --output j -o judge_mode=nosuch
