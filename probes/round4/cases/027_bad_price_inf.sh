#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect_usage run --judge 'scripted:default,price_in=inf,price_out=1' --agent scripted:default --tasks boolq --limit 1 --max-cost 1 --output r
