#!/usr/bin/env bash
# bad input: config_binary -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "config_binary" ob run --config /bin/true --output $T/out1
[ -e "$T/out1" ] && broke "config_binary: wrote $T/out1 although refused"
held
