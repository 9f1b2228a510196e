#!/usr/bin/env bash
# bad input: rounds_zero -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "rounds_zero" ob run $SCR --tasks arith --limit 1 --rounds 0 --output $T/out1
[ -e "$T/out1" ] && broke "rounds_zero: wrote $T/out1 although refused"
held
