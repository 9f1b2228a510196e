#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "-o judge_tool=rm" run_small $T/r -o judge_tool=rm
