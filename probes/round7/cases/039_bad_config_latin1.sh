#!/usr/bin/env bash
# bad input: config_latin1 -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "config_latin1" ob run --config <(printf 'tasks: caf\xe9\n') --output $T/out1
[ -e "$T/out1" ] && broke "config_latin1: wrote $T/out1 although refused"
held
