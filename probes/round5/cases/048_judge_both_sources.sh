#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1; expect2 "judge --from and --suite" ob judge --from $T/r --suite nosuch --judge scripted:default --output $T/j
