#!/usr/bin/env bash
# bad input: report_no_dirs -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "report_no_dirs" ob report --output $T/out1
[ -e "$T/out1" ] && broke "report_no_dirs: wrote $T/out1 although refused"
held
