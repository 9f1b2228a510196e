#!/bin/bash
# area: output-folders. report --output into a folder of unrelated files
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1
mkdir o; echo mine > o/report.md; echo mine > o/notes.txt
out=$(ob report r --output o --no-figures 2>&1); rc=$?; tb_check "$out"
[ "$(cat o/report.md)" = mine ] || broke "report overwrote a report.md it did not write (rc=$rc)"
[ $rc = 0 ] && broke "report accepted a non-empty unrelated folder"
held "rc=$rc"
