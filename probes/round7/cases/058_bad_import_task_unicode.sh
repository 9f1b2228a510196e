#!/usr/bin/env bash
# bad input: import_task_unicode -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "import_task_unicode" ob import llm-debate /dev/null --task "x$(printf '\x1b')[31m" --output $T/out1
[ -e "$T/out1" ] && broke "import_task_unicode: wrote $T/out1 although refused"
held
