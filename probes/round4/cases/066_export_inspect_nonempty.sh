#!/bin/bash
# area: output-folders. export --inspect DIR into a folder with files
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1; mkdir o; echo mine > o/keep.eval; echo mine > o/a.txt
out=$(ob export r --inspect o 2>&1); rc=$?; tb_check "$out"
[ "$(cat o/keep.eval)" = mine ] && [ -f o/a.txt ] || broke "export --inspect lost a file"
held "rc=$rc"
