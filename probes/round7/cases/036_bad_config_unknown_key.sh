#!/usr/bin/env bash
# bad input: config_unknown_key -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "config_unknown_key" ob run --config <(printf 'judge: scripted:default\nbogus: 1\n') --output $T/out1
[ -e "$T/out1" ] && broke "config_unknown_key: wrote $T/out1 although refused"
held
