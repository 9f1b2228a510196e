#!/bin/bash
# area: output-folders. report --output = the run folder itself
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1; cp r/results.json rj.bak; md5=$(md5sum < r/results.sqlite)
out=$(ob report r --output r --no-figures 2>&1); rc=$?; tb_check "$out"
[ "$md5" = "$(md5sum < r/results.sqlite)" ] || broke "results.sqlite changed"
cmp -s rj.bak r/results.json || broke "report overwrote run's results.json (rc=$rc)"
held "rc=$rc"
