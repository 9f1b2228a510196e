#!/bin/bash
# area: bad input; tries: judge --from out/r --judge scripted:default --as bogus --output out/j
. $PROBE/lib.sh
mkrun out/r
expect2 judge --from out/r --judge scripted:default --as bogus --output out/j
