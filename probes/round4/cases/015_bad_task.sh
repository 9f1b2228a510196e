#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect_usage run $SJ --tasks nosuchtask --limit 1 --output r
