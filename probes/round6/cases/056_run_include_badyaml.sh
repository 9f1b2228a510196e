#!/bin/bash
# area: bad input; tries: run $SJ --tasks arith --limit 1 --output out/r --include-path inc
. $PROBE/lib.sh
mkdir inc; printf 'task: [x\n' > inc/t.yaml
expect2 run $SJ --tasks arith --limit 1 --output out/r --include-path inc
