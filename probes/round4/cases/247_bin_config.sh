#!/bin/bash
# area: bad-input (binary, non-UTF-8 file given where text is expected)
. "$(dirname "$0")/../lib.sh"
head -c 3000 /dev/urandom > bin.dat
expect_usage run $SJ --config bin.dat --output r
