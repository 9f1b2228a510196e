#!/usr/bin/env bash
# --protocols debate,debate: the same jobs once (no doubled records)
. "$(dirname "$0")/../lib.sh"
ob run $SCR --tasks arith --protocols debate,debate --limit 2 --rounds 1 --best-of-n 1 --quiet --output "$T/a" >/dev/null 2>"$T/e1" || broke "rc $?: $(tail -1 $T/e1)"
ob run $SCR --tasks arith --protocols debate --limit 2 --rounds 1 --best-of-n 1 --quiet --output "$T/b" >/dev/null 2>&1
a=$(ob export "$T/a" 2>/dev/null | wc -l); b=$(ob export "$T/b" 2>/dev/null | wc -l)
[ "$a" = "$b" ] || broke "doubled protocol gave $a records vs $b"
held
