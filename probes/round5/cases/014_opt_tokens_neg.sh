#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "-o judge_max_tokens=-5" run_small $T/r -o judge_max_tokens=-5
