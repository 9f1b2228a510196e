#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1; echo '{"cells": {"a": {"decisions": [["../../etc", 5]]}}}' > cells.json; expect_usage view r --export v --cells cells.json
