#!/bin/bash
# area: bad input; tries: report out/r
. /work/probe8/lib.sh
mkdir -p out
expect2 report out/r
