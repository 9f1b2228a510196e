#!/bin/bash
# area: output-folders. export-task into folder holding a boolq.yaml it did not write
. "$(dirname "$0")/../lib.sh"
mkdir o; echo mine > o/boolq.yaml; echo mine > o/boolq.csv
out=$(ob export-task boolq --lm-eval o --limit 2 2>&1); rc=$?; tb_check "$out"
[ "$(cat o/boolq.yaml)" = mine ] || broke "export-task overwrote boolq.yaml"
held "rc=$rc"
