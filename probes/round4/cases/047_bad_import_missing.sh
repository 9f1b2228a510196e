#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect_usage import llm-debate /nonexistent --output imp
