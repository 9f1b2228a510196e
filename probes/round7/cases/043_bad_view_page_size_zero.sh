#!/usr/bin/env bash
# bad input: view_page_size_zero -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "view_page_size_zero" ob view --export $T/out1 --page-size 0 /nonexist
[ -e "$T/out1" ] && broke "view_page_size_zero: wrote $T/out1 although refused"
held
