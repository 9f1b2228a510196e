#!/usr/bin/env bash
# run --output an existing regular file / dangling symlink / a path through a file
. "$(dirname "$0")/../lib.sh"; . "$P9/helpers/common_out.sh"
foreign "$T/f"
expect_err "output is a file" ob run $SCR --tasks arith --limit 1 --output "$T/f"
expect_err "output under a file" ob run $SCR --tasks arith --limit 1 --output "$T/f/sub"
intact "$T/f" || broke "file changed"
held
