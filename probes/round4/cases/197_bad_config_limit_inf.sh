#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
printf 'limit: .inf\n' > c.yaml; expect_usage run $SJ --config c.yaml --output r
