#!/bin/bash
# area: bad input; tries: run $SJ --tasks arith --limit 1 --output out/r --include-path /nonexistent
. $PROBE/lib.sh
expect2 run $SJ --tasks arith --limit 1 --output out/r --include-path /nonexistent
