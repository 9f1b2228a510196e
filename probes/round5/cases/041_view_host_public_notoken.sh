#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1; expect2 "view --host 0.0.0.0 no token" ob view $T/r --host 0.0.0.0
