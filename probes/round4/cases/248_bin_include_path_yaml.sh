#!/bin/bash
# area: bad-input (binary, non-UTF-8 file given where text is expected)
. "$(dirname "$0")/../lib.sh"
head -c 3000 /dev/urandom > bin.dat
mkdir inc; cp bin.dat inc/t.yaml; expect_usage run $SJ --tasks boolq --limit 1 --include-path inc --output r
