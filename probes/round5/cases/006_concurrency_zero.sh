#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "concurrency 0" run_small $T/r --concurrency 0
