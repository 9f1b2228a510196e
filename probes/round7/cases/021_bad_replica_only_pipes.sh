#!/usr/bin/env bash
# bad input: replica_only_pipes -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "replica_only_pipes" ob run --judge "openai:m,base_url=|||" --agent scripted:default --tasks arith --limit 1 --output $T/out1
[ -e "$T/out1" ] && broke "replica_only_pipes: wrote $T/out1 although refused"
held
