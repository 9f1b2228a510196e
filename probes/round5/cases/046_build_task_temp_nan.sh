#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "build-task --temperature nan" ob build-task gsm8kqa --model scripted:default --temperature nan --limit 1 --k 2 --output $T/o.jsonl
