#!/bin/bash
# area: bad input; tries: import nyu-debate /nonexistent.json --output out/i
. $PROBE/lib.sh
expect2 import nyu-debate /nonexistent.json --output out/i
