#!/bin/bash
# area: bad input; tries: import llm-debate /nonexistent.csv --output out/i
. /work/probe8/lib.sh
expect2 import llm-debate /nonexistent.csv --output out/i
