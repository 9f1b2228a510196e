#!/bin/bash
# area: output-folders. view --export into / and into a non-empty folder.
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1
mkdir ne; echo keep > ne/index.html; echo keep > ne/other.txt
out=$(ob view r --export ne 2>&1); rc=$?; tb_check "$out"
[ "$(cat ne/index.html)" = keep ] || broke "view --export overwrote ne/index.html"
[ $rc = 2 ] || broke "view --export into non-empty folder rc=$rc"
held "rc=$rc"
