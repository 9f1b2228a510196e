#!/usr/bin/env bash
# bad input: spec_trailing_comma -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "spec_trailing_comma" ob run --judge openai:m,base_url=http://127.0.0.1:9/v1,, --agent scripted:default --tasks arith --limit 1 --output $T/out1
[ -e "$T/out1" ] && broke "spec_trailing_comma: wrote $T/out1 although refused"
held
