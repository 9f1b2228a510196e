#!/usr/bin/env bash
# bad input: replica_ipv6_unclosed -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "replica_ipv6_unclosed" ob run --judge "openai:m,base_url=http://[::1/v1" --agent scripted:default --tasks arith --limit 1 --output $T/out1
[ -e "$T/out1" ] && broke "replica_ipv6_unclosed: wrote $T/out1 although refused"
held
