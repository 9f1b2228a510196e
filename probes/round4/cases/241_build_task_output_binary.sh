#!/bin/bash
# area: bad-input. build-task --output names an existing binary (non-UTF-8) file: one-line error, file untouched
. "$(dirname "$0")/../lib.sh"
head -c 4000 /dev/urandom > out.jsonl; m=$(md5sum < out.jsonl)
fake ok
out=$(T=60 ob build-task gsm8kqa --model "openai:m,base_url=http://127.0.0.1:$PORT/v1" --k 2 --limit 1 --output out.jsonl 2>&1); rc=$?
tb_check "$out"; [ $rc = 2 ] || broke "rc=$rc: $(tail -1 <<<"$out" | cut -c1-100)"
held "$(grep -m1 error: <<<"$out" | cut -c1-90)"
