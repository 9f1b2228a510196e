#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect_usage build-task gsm8kqa --model scripted:default --k 0
