#!/bin/bash
# area: bad input; tries: run --judge 'openai:x,base_url=http://127.0.0.1:9/v1,timeout=1e400' --agent scripted:default --tasks arith --limit 1 --output out/r
. $PROBE/lib.sh
expect2 run --judge 'openai:x,base_url=http://127.0.0.1:9/v1,timeout=1e400' --agent scripted:default --tasks arith --limit 1 --output out/r
