#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
echo x > f; expect_usage import nyu-debate f --output imp
