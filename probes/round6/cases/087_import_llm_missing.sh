#!/bin/bash
# area: bad input; tries: import llm-debate /nonexistent.csv --output out/i
. $PROBE/lib.sh
expect2 import llm-debate /nonexistent.csv --output out/i
