#!/bin/bash
# area: servers/secrets. base_url with user:pass@ ; server echoes Authorization (basic) and body.
. "$(dirname "$0")/../lib.sh"
fake echo
O="openai:m,base_url=http://usr:PaSsWoRd_UsErInFo_77@127.0.0.1:$PORT/v1"
out=$(srun r --judge "$O" 2>&1); rc=$?; tb_check "$out"; echo "$out" > stdout.txt
ob export r > exp.jsonl 2>&1
leakscan PaSsWoRd_UsErInFo_77 r exp.jsonl stdout.txt
b64=$(printf 'usr:PaSsWoRd_UsErInFo_77' | base64); leakscan "$b64" r exp.jsonl stdout.txt
held "rc=$rc"
