#!/bin/bash
# area: data-loss. Refused run into new parent X/a while another run finished X/b: X/b must survive.
. "$(dirname "$0")/../lib.sh"
srun X/b >/dev/null 2>&1 || broke "setup"
out=$(ob run --judge 'scripted:default' --agent scripted:default --tasks boolq --limit 1 --max-cost 1 --output X/a 2>&1); rc=$?
tb_check "$out"
[ -f X/b/results.sqlite ] || broke "X/b deleted by refused run into X/a"
held "rc=$rc"
