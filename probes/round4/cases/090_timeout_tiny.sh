#!/bin/bash
# area: bad-input. timeout=1e-320 (denormal) and timeout=0
. "$(dirname "$0")/../lib.sh"
expect_usage run --judge 'openai:m,base_url=http://127.0.0.1:9/v1,timeout=1e-320' --agent scripted:default --tasks boolq --limit 1 --output r
