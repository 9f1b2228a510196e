#!/bin/bash
# area: bad input; tries: run --judge 'openai:x,base_url=file:///etc/passwd' --agent scripted:default --tasks arith --limit 1 --output out/r
. $PROBE/lib.sh
expect2 run --judge 'openai:x,base_url=file:///etc/passwd' --agent scripted:default --tasks arith --limit 1 --output out/r
