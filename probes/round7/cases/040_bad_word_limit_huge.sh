#!/usr/bin/env bash
# bad input: word_limit_huge -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "word_limit_huge" ob run $SCR --tasks arith --limit 1 --word-limit 99999999999999999999 --output $T/out1
[ -e "$T/out1" ] && broke "word_limit_huge: wrote $T/out1 although refused"
held
