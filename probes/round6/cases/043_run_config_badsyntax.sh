#!/bin/bash
# area: bad input; tries: run --config cfg.yaml
. /work/probe8/lib.sh
printf '%s' 'judge: [scripted:default
' > cfg.yaml
expect2 run --config cfg.yaml
