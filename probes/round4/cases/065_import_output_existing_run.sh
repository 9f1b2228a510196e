#!/bin/bash
# area: output-folders. import into an existing finished run dir
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1; m=$(md5sum < r/results.sqlite)
mkdir src; echo '[]' > src/x.json
out=$(ob import llm-debate src --output r 2>&1); rc=$?; tb_check "$out"
[ "$m" = "$(md5sum < r/results.sqlite)" ] || broke "import changed an existing run's store (rc=$rc)"
held "rc=$rc"
