#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
mkdir d; expect_usage run $SJ --config d --output r
