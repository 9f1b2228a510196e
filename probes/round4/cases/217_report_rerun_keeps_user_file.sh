#!/bin/bash
# area: output-folders. report into its own previous folder plus a user file: the file survives
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1; ob report r --output rep --no-figures >/dev/null 2>&1 || broke setup
echo mine > rep/MY_NOTES.txt
out=$(ob report r --output rep --no-figures 2>&1); rc=$?; tb_check "$out"
[ -f rep/MY_NOTES.txt ] || broke "report re-run deleted a user file (rc=$rc)"
held "rc=$rc"
