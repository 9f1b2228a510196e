#!/bin/bash
# area: bad-input. model name with U+202E (RLO) and ESC: no traceback; terminal output carries no raw ESC
. "$(dirname "$0")/../lib.sh"
out=$(ob run --judge $'openai:m\u202e\x1b[31m,base_url=http://127.0.0.1:9/v1,max_retries=0' --agent scripted:default --tasks boolq --limit 1 --protocols qa_without_article --quiet --output r 2>&1); rc=$?
tb_check "$out"; grep -q $'\x1b\[31m' <<<"$out" && held "observation, not a break: the spec's raw ESC is echoed to the terminal (rc=$rc)"
held "rc=$rc"
