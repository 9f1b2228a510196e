#!/bin/bash
# area: output-folders. leaderboard --output into non-empty unrelated folder, and with --force
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1
mkdir o; echo mine > o/results.json; echo mine > o/index.html
out=$(ob leaderboard r --output o --force 2>&1); rc=$?; tb_check "$out"
[ "$(cat o/results.json)" = mine ] || broke "leaderboard --force overwrote an unrelated results.json"
[ "$(cat o/index.html)" = mine ] || broke "leaderboard --force overwrote index.html"
held "rc=$rc"
