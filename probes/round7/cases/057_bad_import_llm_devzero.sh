#!/usr/bin/env bash
# bad input: import_llm_devzero -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "import_llm_devzero" ob import llm-debate /dev/zero --output $T/out1
[ -e "$T/out1" ] && broke "import_llm_devzero: wrote $T/out1 although refused"
held
