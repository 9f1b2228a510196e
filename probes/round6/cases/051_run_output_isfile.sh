#!/bin/bash
# area: bad input; tries: run $SJ --tasks arith --limit 1 --output afile
. $PROBE/lib.sh
echo keep > afile
expect2 run $SJ --tasks arith --limit 1 --output afile
