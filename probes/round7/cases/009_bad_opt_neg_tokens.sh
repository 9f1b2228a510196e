#!/usr/bin/env bash
# bad input: opt_neg_tokens -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "opt_neg_tokens" ob run $SCR --tasks arith --limit 1 -o argument_max_tokens=-5 --output $T/out1
[ -e "$T/out1" ] && broke "opt_neg_tokens: wrote $T/out1 although refused"
held
