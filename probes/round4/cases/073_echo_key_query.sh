#!/bin/bash
# area: servers/secrets. Server echoes Authorization + path(query): key and query credential must not reach store/export/view.
. "$(dirname "$0")/../lib.sh"
fake echo
export OPENAI_API_KEY=sk-ZzTopSecretKey0987654321
O="openai:m,base_url=http://127.0.0.1:$PORT/v1?code=QuErYcReD55667788"
out=$(srun r --judge "$O" 2>&1); rc=$?; tb_check "$out"; echo "$out" > stdout.txt
ob export r > exp.jsonl 2>&1; ob view r --export v >/dev/null 2>&1
grep -q ECHO exp.jsonl || grep -qa ECHO r/results.sqlite || broke "setup: echo not stored (rc=$rc)"
leakscan ZzTopSecretKey0987654321 r exp.jsonl v stdout.txt
leakscan QuErYcReD55667788 r exp.jsonl v stdout.txt
held "rc=$rc"
