#!/bin/bash
# area: bad input; tries: run $SJ --tasks boolq --limit 1 --output out/r --data-dir /nonexistent
. $PROBE/lib.sh
expect2 run $SJ --tasks boolq --limit 1 --output out/r --data-dir /nonexistent
