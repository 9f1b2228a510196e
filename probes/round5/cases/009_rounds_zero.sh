#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "--rounds 0" run_small $T/r --protocols debate --rounds 0
