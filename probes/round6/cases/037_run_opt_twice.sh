#!/bin/bash
# area: bad input; tries: run $SJ --tasks arith --limit 1 --output out/r -o truncate_words=true -o truncate_words=false
. $PROBE/lib.sh
expect2 run $SJ --tasks arith --limit 1 --output out/r -o truncate_words=true -o truncate_words=false
