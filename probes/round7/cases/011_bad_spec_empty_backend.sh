#!/usr/bin/env bash
# bad input: spec_empty_backend -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "spec_empty_backend" ob run --judge :default --agent scripted:default --tasks arith --limit 1 --output $T/out1
[ -e "$T/out1" ] && broke "spec_empty_backend: wrote $T/out1 although refused"
held
