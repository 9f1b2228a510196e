#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect_usage run --judge 'openai:m,base_url=http://127.0.0.1:9/v1,timeout=nan' --agent scripted:default --tasks boolq --limit 1 --output r
