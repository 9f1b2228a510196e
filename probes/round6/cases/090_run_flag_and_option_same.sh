#!/bin/bash
# area: bad input (value given twice); tries: --rounds 2 together with -o rounds=3
. $PROBE/lib.sh
OB run $SJ --tasks arith --limit 1 --protocols debate --rounds 2 -o rounds=3 --output out/r --quiet >o 2>e; rc=$?
grep -q Traceback e && { echo "BROKE: traceback"; exit; }
[ $rc = 2 ] && grep -qi '^error' e && { echo "HELD ($(head -1 e | cut -c1-100))"; exit; }
r=$(python3 -c "import json; c=json.load(open('out/r/config.json')); print(c.get('options',{}).get('rounds', c.get('rounds')))" 2>/dev/null)
echo "BROKE: accepted (rc=$rc), rounds recorded = $r; one of two conflicting values silently dropped"
