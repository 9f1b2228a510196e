#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1; head -c 3000 /dev/urandom > j.txt; expect_usage serve --from r --output st --judges-file j.txt
