#!/usr/bin/env bash
# bad input: serve_judges_file_devzero -> one-line error:, exit 2, no traceback, nothing written
. "$(dirname "$0")/../lib.sh"
expect_err "serve_judges_file_devzero" ob serve --suite nyu-2023 --output $T/out1 --judges-file /dev/zero
[ -e "$T/out1" ] && broke "serve_judges_file_devzero: wrote $T/out1 although refused"
held
