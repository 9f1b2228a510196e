#!/usr/bin/env bash
# bad input: salvage_self -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "salvage_self" ob salvage $T --output $T
[ -e "$T/out1" ] && broke "salvage_self: wrote $T/out1 although refused"
held
