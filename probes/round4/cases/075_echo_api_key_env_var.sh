#!/bin/bash
# area: servers/secrets. api_key_env=MYVAR (a name not credential-shaped) echoed back.
. "$(dirname "$0")/../lib.sh"
fake echo
export MYVAR=plainlookingvalue_abcdefgh12345
O="openai:m,base_url=http://127.0.0.1:$PORT/v1,api_key_env=MYVAR"
out=$(srun r --judge "$O" 2>&1); rc=$?; tb_check "$out"; echo "$out" > stdout.txt
ob export r > exp.jsonl 2>&1; ob view r --export v >/dev/null 2>&1
leakscan plainlookingvalue_abcdefgh12345 r exp.jsonl v stdout.txt
held "rc=$rc"
