#!/bin/bash
# area: data-loss. report output folder (previous report) holds report.md as symlink to a precious file
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1; ob report r --output o --no-figures >/dev/null 2>&1 || broke setup
echo precious > precious.txt; rm o/report.md; ln -s ../precious.txt o/report.md
out=$(ob report r --output o --no-figures 2>&1); rc=$?; tb_check "$out"
[ "$(cat precious.txt)" = precious ] || broke "report wrote through a symlink into precious.txt (rc=$rc)"
held "rc=$rc"
