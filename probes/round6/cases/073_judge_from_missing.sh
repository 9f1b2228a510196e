#!/bin/bash
# area: bad input; tries: judge --from /nonexistent --judge scripted:default --output out/j
. $PROBE/lib.sh
expect2 judge --from /nonexistent --judge scripted:default --output out/j
