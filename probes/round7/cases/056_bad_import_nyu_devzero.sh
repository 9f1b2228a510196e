#!/usr/bin/env bash
# bad input: import_nyu_devzero -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "import_nyu_devzero" ob import nyu-debate /dev/zero --output $T/out1
[ -e "$T/out1" ] && broke "import_nyu_devzero: wrote $T/out1 although refused"
held
