#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1; expect2 "view --page-size 0" ob view $T/r --export $T/ex --page-size 0
