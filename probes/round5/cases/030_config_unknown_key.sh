#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
printf 'nosuchkey: 1\n' > $T/c.yaml; expect2 "unknown config key" run_small $T/r --config $T/c.yaml
