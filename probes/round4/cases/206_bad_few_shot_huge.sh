#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect_usage run $SJ --tasks boolq --limit 1 --few-shot 100000000 --output r
