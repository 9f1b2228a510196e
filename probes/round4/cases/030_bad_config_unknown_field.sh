#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
printf 'taskz: boolq\n' > c.yaml; expect_usage run $SJ --config c.yaml --output r
