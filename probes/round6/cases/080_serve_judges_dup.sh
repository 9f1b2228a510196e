#!/bin/bash
# area: bad input; tries: serve --judges ann,ann (a name given twice): refused, or one link for ann
. $PROBE/lib.sh
mkrun out/r
OBT=6 OB serve --from out/r --output out/s --judges 'ann,ann' --port 18731 >o 2>e; rc=$?
grep -q Traceback e o && { echo "BROKE: traceback"; exit; }
[ $rc = 2 ] && { grep -qi '^error' e && echo "HELD (refused: $(head -1 e))" || echo "BROKE: rc2 no error line"; exit; }
n=$(cat o e | grep -c 'ann')
echo "HELD (rc=$rc, deduplicated; lines naming ann: $n)"
