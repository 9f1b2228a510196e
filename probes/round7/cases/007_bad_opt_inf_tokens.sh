#!/usr/bin/env bash
# bad input: opt_inf_tokens -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "opt_inf_tokens" ob run $SCR --tasks arith --limit 1 -o judge_max_tokens=inf --output $T/out1
[ -e "$T/out1" ] && broke "opt_inf_tokens: wrote $T/out1 although refused"
held
