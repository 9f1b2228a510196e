#!/usr/bin/env bash
# bad input: replica_empty_second -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "replica_empty_second" ob run --judge "openai:m,base_url=http://127.0.0.1:9/v1|ftp://x" --agent scripted:default --tasks arith --limit 1 --output $T/out1
[ -e "$T/out1" ] && broke "replica_empty_second: wrote $T/out1 although refused"
held
