#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1; echo '{"cells": [1,2' > carry.json; expect_usage leaderboard r --output lb --carry carry.json
