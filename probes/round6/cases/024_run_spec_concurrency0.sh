#!/bin/bash
# area: bad input; tries: run --judge 'scripted:default,concurrency=0' --agent scripted:default --tasks arith --limit 1 --output out/r
. /work/probe8/lib.sh
expect2 run --judge 'scripted:default,concurrency=0' --agent scripted:default --tasks arith --limit 1 --output out/r
