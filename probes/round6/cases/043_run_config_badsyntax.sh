#!/bin/bash
# area: bad input; tries: run --config cfg.yaml
. $PROBE/lib.sh
printf '%s' 'judge: [scripted:default
' > cfg.yaml
expect2 run --config cfg.yaml
