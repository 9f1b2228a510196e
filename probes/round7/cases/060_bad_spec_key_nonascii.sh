#!/usr/bin/env bash
# bad input: spec_key_nonascii -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "spec_key_nonascii" ob run --judge "openai:m,base_url=http://127.0.0.1:9/v1,api_key=kéy123456" --agent scripted:default --tasks arith --limit 1 --output $T/out1
[ -e "$T/out1" ] && broke "spec_key_nonascii: wrote $T/out1 although refused"
held
