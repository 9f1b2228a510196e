#!/usr/bin/env bash
# bad input: config_list -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "config_list" ob run --config <(echo '[1,2]') --output $T/out1
[ -e "$T/out1" ] && broke "config_list: wrote $T/out1 although refused"
held
