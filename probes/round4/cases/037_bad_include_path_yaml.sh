#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
mkdir inc; printf 'task: [1,2\n' > inc/t.yaml; expect_usage run $SJ --tasks boolq --limit 1 --include-path inc --output r
