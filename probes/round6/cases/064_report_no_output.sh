#!/bin/bash
# area: bad input; tries: report out/r
. $PROBE/lib.sh
mkdir -p out
expect2 report out/r
