#!/bin/bash
# area: bad input; tries: run --judge 'scripted:default,price_in=-1,price_out=1' --agent scripted:default --tasks arith --limit 1 --output out/r --max-cost 1
. $PROBE/lib.sh
expect2 run --judge 'scripted:default,price_in=-1,price_out=1' --agent scripted:default --tasks arith --limit 1 --output out/r --max-cost 1
