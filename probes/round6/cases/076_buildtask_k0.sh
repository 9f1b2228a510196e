#!/bin/bash
# area: bad input; tries: build-task gsm8kqa --model scripted:default --k 0 --output o.jsonl
. $PROBE/lib.sh
expect2 build-task gsm8kqa --model scripted:default --k 0 --output o.jsonl
