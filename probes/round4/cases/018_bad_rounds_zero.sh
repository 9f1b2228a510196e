#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect_usage run $SJ --tasks boolq --rounds 0 --limit 1 --output r
