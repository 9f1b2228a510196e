#!/bin/bash
# area: bad-input/memory. export-task into a folder whose boolq.yaml is a YAML alias bomb (billion laughs): bounded, one line, files untouched
. "$(dirname "$0")/../lib.sh"
mkdir o
python -c "
print('task: boolq')
print('a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]')
for i in range(9): print(f'{chr(98+i)}: &{chr(98+i)} [' + ','.join(['*'+chr(97+i)]*9) + ']')
" > o/boolq.yaml; echo 'q,a' > o/boolq.csv; m=$(md5sum < o/boolq.yaml)
s=$(date +%s); out=$( (ulimit -v 2000000; T=40 ob export-task boolq --lm-eval o --limit 2) 2>&1); rc=$?; e=$(( $(date +%s)-s ))
tb_check "$out"; [ $rc = 124 ] && broke "hung 40 s on a YAML alias bomb"; [ $e -gt 20 ] && broke "took ${e}s"
[ "$m" = "$(md5sum < o/boolq.yaml)" ] || broke "overwrote boolq.yaml it did not write"
[ $rc = 2 ] || broke "rc=$rc"
held "${e}s $(grep -m1 error: <<<"$out" | cut -c1-80)"
