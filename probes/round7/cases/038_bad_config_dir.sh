#!/usr/bin/env bash
# bad input: config_dir -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "config_dir" ob run --config /tmp --output $T/out1
[ -e "$T/out1" ] && broke "config_dir: wrote $T/out1 although refused"
held
