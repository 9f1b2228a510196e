#!/bin/bash
# area: servers: usage with NaN / 1e309 / negative token counts, then --max-total-tokens resume and report
. "$(dirname "$0")/../lib.sh"
serve nanusage
J="openai:m,base_url=http://127.0.0.1:$PORT/v1,api_key=k,max_retries=0,timeout=5"
run_small $T/r --judge "$J" >$T/o 2>&1; rc=$?
grep -q Traceback $T/o && broke "run traceback: $(grep -v '^ ' $T/o | tail -1)"
run_small $T/r --judge "$J" --max-total-tokens 1000 >$T/o2 2>&1; rc2=$?
grep -q Traceback $T/o2 && broke "resume traceback: $(grep -v '^ ' $T/o2 | tail -1)"
ob report $T/r --no-figures --output $T/rep >$T/o3 2>&1; grep -q Traceback $T/o3 && broke "report traceback"
held "rc=$rc resume=$rc2"
