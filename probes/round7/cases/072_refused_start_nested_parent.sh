#!/usr/bin/env bash
# a refused start into new nested folders: removes only what it made; a sibling file in a made parent survives
. "$(dirname "$0")/../lib.sh"; . "$P9/helpers/common_out.sh"
# refused late: --max-cost without prices
ob run $SCR --tasks arith --limit 1 --max-cost 1 --output "$T/new/a/b/c" >/dev/null 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || broke "rc $rc"
grep -q Traceback "$T/e" && broke traceback
[ -e "$T/new" ] && broke "left folders behind: $(find $T/new | head -3 | tr '\n' ' ')"
# now with a foreign file in an existing parent
foreign "$T/p/keep.txt"
ob run $SCR --tasks arith --limit 1 --max-cost 1 --output "$T/p/x/y" >/dev/null 2>&1
intact "$T/p/keep.txt" || broke "existing parent's file lost"
held
