#!/usr/bin/env bash
# bad input: timeout_huge -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "timeout_huge" ob run --judge openai:m,base_url=http://127.0.0.1:9/v1,timeout=1e300 --agent scripted:default --tasks arith --limit 1 --output $T/out1
[ -e "$T/out1" ] && broke "timeout_huge: wrote $T/out1 although refused"
held
