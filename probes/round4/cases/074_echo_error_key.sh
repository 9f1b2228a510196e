#!/bin/bash
# area: servers/secrets. Server's 400 error message echoes the key and query.
. "$(dirname "$0")/../lib.sh"
fake echoerr
export OPENAI_API_KEY=sk-ErrEchoSecret1122334455
O="openai:m,base_url=http://127.0.0.1:$PORT/v1?token=QtOkEn998877665544,max_retries=0"
out=$(srun r --judge "$O" 2>&1); rc=$?; tb_check "$out"; echo "$out" > stdout.txt
leakscan ErrEchoSecret1122334455 r stdout.txt; leakscan QtOkEn998877665544 r stdout.txt
held "rc=$rc"
