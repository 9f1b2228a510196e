#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1; expect2 "view --port 70000" ob view $T/r --port 70000
