#!/bin/bash
# area: bad input; tries: run $SJ --tasks arith --limit 1 --output out/r --cache-from afile
. $PROBE/lib.sh
echo x > afile
expect2 run $SJ --tasks arith --limit 1 --output out/r --cache-from afile
