#!/bin/bash
# area: servers/web. Reply with NUL, ANSI escapes, lone surrogate, <script>: view export escaped, terminal clean.
. "$(dirname "$0")/../lib.sh"
fake control
O="openai:m,base_url=http://127.0.0.1:$PORT/v1"
out=$(srun r --judge "$O" 2>&1); rc=$?; tb_check "$out"
ob view r --export v > vo.txt 2>&1; tb_check "$(cat vo.txt)"
grep -rq '<script>alert(1)' v && broke "unescaped <script> in exported view"
o2=$(ob export r 2>&1); tb_check "$o2"
grep -q $'\x1b\[31m' <<<"$out$(cat vo.txt)" && broke "raw ANSI escape reached the terminal"
held "rc=$rc"
