#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "config /dev/zero" run_small $T/r --config /dev/zero
