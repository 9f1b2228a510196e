#!/bin/bash
# area: bad input; tries: judge --from /nonexistent --judge scripted:default --output out/j
. /work/probe8/lib.sh
expect2 judge --from /nonexistent --judge scripted:default --output out/j
