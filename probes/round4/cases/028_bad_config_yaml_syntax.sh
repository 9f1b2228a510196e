#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
printf 'tasks: [boolq\n  limit: : 3\n' > c.yaml; expect_usage run $SJ --config c.yaml --output r
