#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
printf 'limit: !!python/object/apply:os.system ["touch PWNED"]\n' > c.yaml; out=$(ob run $SJ --config c.yaml --output r 2>&1); [ -e PWNED ] && broke "yaml executed code"; tb_check "$out"; expect_usage run $SJ --config c.yaml --output r
