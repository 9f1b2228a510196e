#!/usr/bin/env bash
# bad input: buildtask_output_dir -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "buildtask_output_dir" ob build-task gsm8kqa --model scripted:default --output /tmp --limit 1
[ -e "$T/out1" ] && broke "buildtask_output_dir: wrote $T/out1 although refused"
held
