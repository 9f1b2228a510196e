#!/bin/bash
# area: stores. --cache-from a store whose calls.response is garbage / wrong types: no traceback, no garbage reused as a reply
. "$(dirname "$0")/../lib.sh"
srun src >/dev/null 2>&1 || broke setup
python $P6/storemut.py src/results.sqlite call texts '[{"a": 1}]'
out=$(srun r --cache-from src 2>&1); rc=$?; tb_check "$out"; [ $rc -gt 2 ] && broke "rc=$rc"
held "rc=$rc $(tail -1 <<<"$out" | cut -c1-80)"
