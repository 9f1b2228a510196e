#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "--max-total-tokens 0" run_small $T/r --max-total-tokens 0
