#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
printf 'seed: [1, 2\n' > $T/c.yaml; expect2 "broken YAML config" run_small $T/r --config $T/c.yaml
