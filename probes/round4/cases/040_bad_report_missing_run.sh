#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect_usage report nosuchrun --output rep
