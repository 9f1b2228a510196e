#!/bin/bash
# area: bad-input (binary, non-UTF-8 file given where text is expected)
. "$(dirname "$0")/../lib.sh"
head -c 3000 /dev/urandom > bin.dat
cp bin.dat in.csv; expect_usage import llm-debate in.csv --output imp
