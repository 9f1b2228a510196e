#!/usr/bin/env bash
# bad input: list_bad_kind -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "list_bad_kind" ob list nosuch
[ -e "$T/out1" ] && broke "list_bad_kind: wrote $T/out1 although refused"
held
