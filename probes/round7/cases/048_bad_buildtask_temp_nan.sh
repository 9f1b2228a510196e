#!/usr/bin/env bash
# bad input: buildtask_temp_nan -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "buildtask_temp_nan" ob build-task gsm8kqa --model scripted:default --temperature nan --output $T/out1
[ -e "$T/out1" ] && broke "buildtask_temp_nan: wrote $T/out1 although refused"
held
