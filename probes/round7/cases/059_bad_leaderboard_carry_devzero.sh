#!/usr/bin/env bash
# bad input: leaderboard_carry_devzero -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "leaderboard_carry_devzero" ob leaderboard /nonexist --output $T/out1 --carry /dev/zero
[ -e "$T/out1" ] && broke "leaderboard_carry_devzero: wrote $T/out1 although refused"
held
