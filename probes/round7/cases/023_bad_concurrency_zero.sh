#!/usr/bin/env bash
# bad input: concurrency_zero -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "concurrency_zero" ob run $SCR --tasks arith --limit 1 --concurrency 0 --output $T/out1
[ -e "$T/out1" ] && broke "concurrency_zero: wrote $T/out1 although refused"
held
