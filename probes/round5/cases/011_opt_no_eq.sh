#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "-o foo" run_small $T/r -o foo
