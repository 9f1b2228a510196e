#!/usr/bin/env bash
# bad input: judge_from_and_suite -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "judge_from_and_suite" ob judge --from /nonexist --suite nyu-2023 --judge scripted:default --output $T/out1
[ -e "$T/out1" ] && broke "judge_from_and_suite: wrote $T/out1 although refused"
held
