#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "spec nosuch:m" run_small $T/r --judge "nosuch:m"
