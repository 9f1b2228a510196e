#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
mkdir d; expect_usage judge --from d --judge scripted:default --output j
