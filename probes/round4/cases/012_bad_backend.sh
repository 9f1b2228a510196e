#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect_usage run --judge 'nosuch:model' --agent scripted:default --tasks boolq --limit 1 --output r
