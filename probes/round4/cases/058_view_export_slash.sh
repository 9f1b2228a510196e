#!/bin/bash
# area: output-folders. view --export / must be refused (we are root!) -- run in a throwaway mount namespace to be safe
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1
ls / > before.txt
out=$(ob view r --export / 2>&1); rc=$?; tb_check "$out"
ls / > after.txt
diff -q before.txt after.txt >/dev/null || broke "view --export / wrote into /: $(diff before.txt after.txt | head -3 | tr '\n' ' ')"
[ $rc = 2 ] || broke "rc=$rc"
held
