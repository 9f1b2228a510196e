#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "--tasks nosuch" run_small $T/r --tasks nosuch
