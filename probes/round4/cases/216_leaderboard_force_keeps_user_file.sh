#!/bin/bash
# area: output-folders. leaderboard --force on its own folder holding an extra user file: the user file survives
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1; ob leaderboard r --output lb >/dev/null 2>&1 || broke setup
echo mine > lb/MY_NOTES.txt; mkdir lb/mydir; echo m > lb/mydir/x
out=$(ob leaderboard r --output lb --force 2>&1); rc=$?; tb_check "$out"
[ -f lb/MY_NOTES.txt ] && [ -f lb/mydir/x ] || broke "leaderboard --force deleted user files (rc=$rc)"
held "rc=$rc"
