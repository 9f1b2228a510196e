#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect_usage run $SJ --judge 'openai:m,base_url=http://127.0.0.1:9/v1,timeout=inf' --tasks boolq --limit 1 --output r
