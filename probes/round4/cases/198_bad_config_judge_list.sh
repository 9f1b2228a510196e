#!/bin/bash
# area: bad-input. config judge is a list (no --judge flag to override it)
. "$(dirname "$0")/../lib.sh"
printf 'judge: [a, b]\ntasks: boolq\nlimit: 1\n' > c.yaml; expect_usage run --agent scripted:default --config c.yaml --output r
