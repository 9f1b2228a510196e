#!/usr/bin/env bash
# bad input: max_cost_nan -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "max_cost_nan" ob run $SCR --tasks arith --limit 1 --max-cost nan --output $T/out1
[ -e "$T/out1" ] && broke "max_cost_nan: wrote $T/out1 although refused"
held
