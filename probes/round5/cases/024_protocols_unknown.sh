#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "--protocols nope" run_small $T/r --protocols nope
