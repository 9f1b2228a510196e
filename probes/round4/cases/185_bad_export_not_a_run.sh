#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
mkdir d; echo x > d/a; expect_usage export d
