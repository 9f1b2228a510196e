#!/usr/bin/env bash
# bad input: opt_nan_temp -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "opt_nan_temp" ob run $SCR --tasks arith --limit 1 -o judge_temperature=nan --output $T/out1
[ -e "$T/out1" ] && broke "opt_nan_temp: wrote $T/out1 although refused"
held
