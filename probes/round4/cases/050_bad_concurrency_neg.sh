#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect_usage run $SJ --tasks boolq --limit 1 --concurrency -2 --output r
