#!/bin/bash
# area: bad input; tries: run $SJ --tasks nosuch --limit 1 --output out/r
. /work/probe8/lib.sh
expect2 run $SJ --tasks nosuch --limit 1 --output out/r
