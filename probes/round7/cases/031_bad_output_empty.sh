#!/usr/bin/env bash
# bad input: output_empty -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "output_empty" ob run $SCR --tasks arith --limit 1 --output ""
[ -e "$T/out1" ] && broke "output_empty: wrote $T/out1 although refused"
held
