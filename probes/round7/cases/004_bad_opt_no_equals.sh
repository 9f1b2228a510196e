#!/usr/bin/env bash
# bad input: opt_no_equals -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "opt_no_equals" ob run $SCR --tasks arith --limit 1 -o judge_temperature --output $T/out1
[ -e "$T/out1" ] && broke "opt_no_equals: wrote $T/out1 although refused"
held
