#!/bin/bash
# area: bad input; tries: run --config cfg.yaml
. $PROBE/lib.sh
printf '%s' '- a
- b
' > cfg.yaml
expect2 run --config cfg.yaml
