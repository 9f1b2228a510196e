#!/bin/bash
# area: bad input; tries: judge --from out/r --judge scripted:default -o bogus=1 --output out/j
. $PROBE/lib.sh
mkrun out/r
expect2 judge --from out/r --judge scripted:default -o bogus=1 --output out/j
