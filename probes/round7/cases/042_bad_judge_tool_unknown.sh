#!/usr/bin/env bash
# bad input: judge_tool_unknown -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "judge_tool_unknown" ob run $SCR --tasks arith --limit 1 -o judge_tool=nosuch --output $T/out1
[ -e "$T/out1" ] && broke "judge_tool_unknown: wrote $T/out1 although refused"
held
