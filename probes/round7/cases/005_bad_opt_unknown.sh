#!/usr/bin/env bash
# bad input: opt_unknown -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "opt_unknown" ob run $SCR --tasks arith --limit 1 -o nosuch_option=1 --output $T/out1
[ -e "$T/out1" ] && broke "opt_unknown: wrote $T/out1 although refused"
held
