#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "spec with NUL-ish ctrl char" run_small $T/r --judge $'scripted:default,\x01=2'
