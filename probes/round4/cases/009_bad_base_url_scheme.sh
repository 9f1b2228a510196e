#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect_usage run --judge 'openai:m,base_url=file:///etc/passwd' --agent scripted:default --tasks boolq --limit 1 --output r
