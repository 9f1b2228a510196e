#!/usr/bin/env bash
# bad input: opt_twice_conflict -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "opt_twice_conflict" ob run $SCR --tasks arith --limit 1 -o rounds=1 -o rounds=2 --output $T/out1
[ -e "$T/out1" ] && broke "opt_twice_conflict: wrote $T/out1 although refused"
held
