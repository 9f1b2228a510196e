#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
printf 'seed: abc\n' > $T/c.yaml; expect2 "seed: abc in YAML" run_small $T/r --config $T/c.yaml
