#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "--max-cost -1" run_small $T/r --max-cost -1
