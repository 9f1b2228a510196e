#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect_usage run $SJ --tasks boolq --best-of-n -1 --limit 1 --output r
