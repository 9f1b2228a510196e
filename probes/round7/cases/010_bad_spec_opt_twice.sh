#!/usr/bin/env bash
# bad input: spec_opt_twice -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "spec_opt_twice" ob run --judge scripted:default,seed=1,seed=2 --agent scripted:default --tasks arith --limit 1 --output $T/out1
[ -e "$T/out1" ] && broke "spec_opt_twice: wrote $T/out1 although refused"
held
