#!/bin/bash
# area: data-loss. run dir holds a symlink named samples.jsonl pointing at a precious file elsewhere
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1; echo precious > precious.txt; rm -f r/samples.jsonl; ln -s ../precious.txt r/samples.jsonl
out=$(srun r 2>&1); rc=$?; tb_check "$out"
[ "$(cat precious.txt)" = precious ] || broke "resume wrote through samples.jsonl symlink into precious.txt (rc=$rc)"
held "rc=$rc"
