#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "-o nosuch=1" run_small $T/r -o nosuch=1
