#!/bin/bash
# area: web/data-loss. hostile store: job_key / question_id / task hold '../../' and '/abs' paths: view --export writes nothing outside its folder
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1 || broke setup
python - <<'PY'
import sqlite3; c = sqlite3.connect("r/results.sqlite")
c.execute("update records set job_key = '../../../../p6_escape_' || id, question_id='../../p6q', task='../p6t'")
c.execute("update questions set question_id='../../p6q', task='../p6t'")
c.commit()
PY
mkdir -p deep/er; cd deep/er
out=$(ob view ../../r --export v 2>&1); rc=$?; tb_check "$out"; cd ../..
f=$(find / -xdev -name 'p6_escape_*' -newer r/results.sqlite 2>/dev/null | head -2; find $W -name 'p6q*' -o -name 'p6t*' 2>/dev/null | grep -v '/v/' | head -2)
[ -n "$f" ] && broke "view --export wrote outside its folder: $f"
held "rc=$rc"
