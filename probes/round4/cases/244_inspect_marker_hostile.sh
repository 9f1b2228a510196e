#!/bin/bash
# area: output-folders. export --inspect into a folder whose marker lists '../../x.eval' and a user file named like an earlier log
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1 || broke setup
mkdir ins; echo '{"run": "r", "logs": ["../victim.eval", "/tmp/abs.eval", "mine.eval"]}' > ins/oversight-bench-inspect.json
echo mine > ins/mine.eval; echo victim > victim.eval
out=$(ob export r --inspect ins 2>&1); rc=$?; tb_check "$out"
[ "$(cat victim.eval)" = victim ] || broke "export --inspect touched ../victim.eval named by a hostile marker"
[ -f ins/mine.eval ] || [ $rc = 0 ] || broke "refused yet deleted mine.eval"
held "rc=$rc"
