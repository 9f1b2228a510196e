#!/bin/bash
# area: bad input; tries: view out/r --port 70000
. $PROBE/lib.sh
mkrun out/r
expect2 view out/r --port 70000
