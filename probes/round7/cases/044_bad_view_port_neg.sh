#!/usr/bin/env bash
# bad input: view_port_neg -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "view_port_neg" ob view --port -1 .
[ -e "$T/out1" ] && broke "view_port_neg: wrote $T/out1 although refused"
held
