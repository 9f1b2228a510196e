#!/usr/bin/env bash
# bad input: limit_neg -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "limit_neg" ob run $SCR --tasks arith --limit -1 --output $T/out1
[ -e "$T/out1" ] && broke "limit_neg: wrote $T/out1 although refused"
held
