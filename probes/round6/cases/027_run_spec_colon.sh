#!/bin/bash
# area: bad input; tries: run --judge ':' --agent scripted:default --tasks arith --limit 1 --output out/r
. /work/probe8/lib.sh
expect2 run --judge ':' --agent scripted:default --tasks arith --limit 1 --output out/r
