#!/bin/bash
# area: output-folders. view --export into its own previous export + a user file, and into the export of another run
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1; srun r2 --tasks mmlu >/dev/null 2>&1; ob view r --export v >/dev/null 2>&1 || broke setup
echo mine > v/MY_NOTES.txt
out=$(ob view r --export v 2>&1); rc=$?; tb_check "$out"; [ -f v/MY_NOTES.txt ] || broke "re-export deleted a user file (rc=$rc)"
h=$(md5sum < v/index.html)
out=$(ob view r2 --export v 2>&1); rc2=$?; tb_check "$out"
[ "$h" = "$(md5sum < v/index.html)" ] || [ $rc2 = 0 ] || broke "refused export still changed index.html"
[ -f v/MY_NOTES.txt ] || broke "export of another run deleted a user file"
held "rc=$rc/$rc2"
