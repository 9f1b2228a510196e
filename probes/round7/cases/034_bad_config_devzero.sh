#!/usr/bin/env bash
# bad input: config_devzero -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "config_devzero" ob run --config /dev/zero --output $T/out1
[ -e "$T/out1" ] && broke "config_devzero: wrote $T/out1 although refused"
held
