#!/usr/bin/env bash
# bad input: config_dup_key -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "config_dup_key" ob run --config <(printf 'limit: 1\nlimit: 2\n') $SCR --tasks arith --output $T/out1
[ -e "$T/out1" ] && broke "config_dup_key: wrote $T/out1 although refused"
held
