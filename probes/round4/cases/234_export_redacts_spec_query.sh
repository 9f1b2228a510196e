#!/bin/bash
# area: servers/secrets. a query credential and api_key= option in the spec: config.json, export, view export, report carry none
. "$(dirname "$0")/../lib.sh"
fake ok
O="openai:m,base_url=http://127.0.0.1:$PORT/v1?sig=SiGqUeRy1234567890,api_key=sk-SpecKeyOpt0987654321"
out=$(srun r --judge "$O" 2>&1); rc=$?; tb_check "$out"; [ $rc = 0 ] || broke "setup rc=$rc"
ob export r > e.jsonl 2>&1; ob view r --export v > vo.txt 2>&1; ob report r --output rep --no-figures > ro.txt 2>&1; ob export r --inspect ins > io.txt 2>&1
echo "$out" > so.txt
leakscan SiGqUeRy1234567890 r e.jsonl v rep ins so.txt vo.txt ro.txt io.txt
leakscan SpecKeyOpt0987654321 r e.jsonl v rep ins so.txt vo.txt ro.txt io.txt
held
