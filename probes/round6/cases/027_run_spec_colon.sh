#!/bin/bash
# area: bad input; tries: run --judge ':' --agent scripted:default --tasks arith --limit 1 --output out/r
. $PROBE/lib.sh
expect2 run --judge ':' --agent scripted:default --tasks arith --limit 1 --output out/r
