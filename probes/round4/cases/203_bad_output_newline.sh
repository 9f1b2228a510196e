#!/bin/bash
# area: bad-input. --output with a newline in its name: no traceback (POSIX allows the name)
. "$(dirname "$0")/../lib.sh"
out=$(srun $'r\nx' 2>&1); rc=$?; tb_check "$out"; [ $rc -gt 2 ] && broke "rc=$rc"; held "rc=$rc"
