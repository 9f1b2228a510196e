#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "--tasks ,," run_small $T/r --tasks ",,"
