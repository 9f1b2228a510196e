#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "--best-of-n 10^12" run_small $T/r --protocols debate --best-of-n 1000000000000
