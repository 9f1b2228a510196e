#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "--limit -1" run_small $T/r --limit -1
