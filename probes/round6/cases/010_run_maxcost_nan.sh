#!/bin/bash
# area: bad input; tries: run $SJ --tasks arith --limit 1 --output out/r --max-cost nan
. $PROBE/lib.sh
expect2 run $SJ --tasks arith --limit 1 --output out/r --max-cost nan
