#!/usr/bin/env bash
# bad input: buildtask_k_1 -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "buildtask_k_1" ob build-task gsm8kqa --model scripted:default --k 1 --output $T/out1
[ -e "$T/out1" ] && broke "buildtask_k_1: wrote $T/out1 although refused"
held
