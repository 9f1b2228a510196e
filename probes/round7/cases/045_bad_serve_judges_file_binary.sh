#!/usr/bin/env bash
# bad input: serve_judges_file_binary -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "serve_judges_file_binary" ob serve --from /nonexist --output $T/out1 --judges-file /bin/true
[ -e "$T/out1" ] && broke "serve_judges_file_binary: wrote $T/out1 although refused"
held
