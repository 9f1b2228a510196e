#!/bin/bash
# area: bad input; tries: run $SJ --tasks ',' --limit 1 --output out/r
. $PROBE/lib.sh
expect2 run $SJ --tasks ',' --limit 1 --output out/r
