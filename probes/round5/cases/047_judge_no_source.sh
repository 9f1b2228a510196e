#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "judge without --from/--suite" ob judge --judge scripted:default --output $T/j
