#!/bin/bash
# area: bad input; tries: run --judge 'scripted:default,concurrency=0' --agent scripted:default --tasks arith --limit 1 --output out/r
. $PROBE/lib.sh
expect2 run --judge 'scripted:default,concurrency=0' --agent scripted:default --tasks arith --limit 1 --output out/r
