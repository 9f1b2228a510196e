#!/bin/bash
# area: bad input; tries: run --config cfg.yaml
. $PROBE/lib.sh
printf '%s' 'judge: scripted:default
agent: scripted:default
tasks: arith
limit: 1
limit: 2
output: out/r
' > cfg.yaml
expect2 run --config cfg.yaml
