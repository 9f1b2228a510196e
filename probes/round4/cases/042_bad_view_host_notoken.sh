#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect_usage view . --host 0.0.0.0
