#!/usr/bin/env bash
# bad input: tasks_empty -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "tasks_empty" ob run $SCR --tasks , --limit 1 --output $T/out1
[ -e "$T/out1" ] && broke "tasks_empty: wrote $T/out1 although refused"
held
