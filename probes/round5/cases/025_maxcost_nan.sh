#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "--max-cost nan" run_small $T/r --max-cost nan
