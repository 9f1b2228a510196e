#!/usr/bin/env bash
# bad input: export_inspect_file -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "export_inspect_file" ob export /nonexist --inspect /dev/null
[ -e "$T/out1" ] && broke "export_inspect_file: wrote $T/out1 although refused"
held
