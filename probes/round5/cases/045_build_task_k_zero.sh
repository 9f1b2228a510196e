#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
expect2 "build-task --k 0" ob build-task gsm8kqa --model scripted:default --k 0 --output $T/o.jsonl
