#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
head -c 3000 /dev/urandom > $T/c.yaml; expect2 "binary config" run_small $T/r --config $T/c.yaml
