#!/bin/bash
# area: output-folders. --output names an existing file; and a folder of unrelated files
. "$(dirname "$0")/../lib.sh"
echo precious > f; mkdir d; echo p > d/x.txt
expect_usage_keep(){ :; }
out=$(srun f 2>&1); rc=$?; tb_check "$out"; [ "$(cat f)" = precious ] || broke "file clobbered"; [ $rc = 2 ] || broke "file as output rc=$rc"
out=$(srun d 2>&1); rc=$?; tb_check "$out"; [ -f d/x.txt ] || broke "x.txt lost"
held "rc=$rc"
