#!/usr/bin/env bash
# bad input: tasks_unicode -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "tasks_unicode" ob run $SCR --tasks "ar$(printf '\u200b')ith" --limit 1 --output $T/out1
[ -e "$T/out1" ] && broke "tasks_unicode: wrote $T/out1 although refused"
held
