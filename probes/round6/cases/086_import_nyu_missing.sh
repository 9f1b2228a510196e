#!/bin/bash
# area: bad input; tries: import nyu-debate /nonexistent.json --output out/i
. /work/probe8/lib.sh
expect2 import nyu-debate /nonexistent.json --output out/i
