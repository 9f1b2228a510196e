#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
mkdir $T/inc; printf 'task: [\n' > $T/inc/x.yaml; expect2 "broken include-path YAML" run_small $T/r --include-path $T/inc --tasks x
