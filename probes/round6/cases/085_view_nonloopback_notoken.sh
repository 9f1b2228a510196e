#!/bin/bash
# area: bad input; tries: view out/r --host 0.0.0.0
. $PROBE/lib.sh
mkrun out/r
expect2 view out/r --host 0.0.0.0
