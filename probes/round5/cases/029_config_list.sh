#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
printf -- '- 1\n- 2\n' > $T/c.yaml; expect2 "YAML list config" run_small $T/r --config $T/c.yaml
