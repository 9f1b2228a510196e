#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1; expect2 "serve judge name with newline" ob serve --from $T/r --output $T/s --judges $'al\nice,bob'
