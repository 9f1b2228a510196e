#!/bin/bash
# area: bad input; tries: --seed 2**70 (beyond SQLite's integer): refused, or run + resume + report work
. $PROBE/lib.sh
OB run $SJ --tasks arith --limit 1 --protocols qa_without_article,debate --seed 1180591620717411303424 --output out/r --quiet >o 2>e; rc=$?
grep -q Traceback e && { echo "BROKE: traceback $(tail -1 e)"; exit; }
[ $rc = 2 ] && { echo "HELD (refused)"; exit; }
OB run $SJ --tasks arith --limit 1 --protocols qa_without_article,debate --seed 1180591620717411303424 --output out/r --quiet >o 2>e || { echo "BROKE: resume rc=$? $(tail -1 e)"; exit; }
OB report out/r --output rep --no-figures >o 2>e || { echo "BROKE: report $(tail -1 e)"; exit; }
echo HELD
