#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect_usage export-task boolq --lm-eval out --limit -3
