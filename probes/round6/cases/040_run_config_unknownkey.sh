#!/bin/bash
# area: bad input; tries: run --config cfg.yaml
. $PROBE/lib.sh
printf '%s' 'judge: scripted:default
agent: scripted:default
tasks: arith
limit: 1
output: out/r
bogus_key: 1
' > cfg.yaml
expect2 run --config cfg.yaml
