#!/bin/bash
# area: bad input; tries: view out/r --export ex --page-size 0
. $PROBE/lib.sh
mkrun out/r
expect2 view out/r --export ex --page-size 0
