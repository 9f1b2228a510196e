#!/bin/bash
# area: bad input; tries: serve --from out/r --output out/s --host 0.0.0.0
. $PROBE/lib.sh
mkrun out/r
expect2 serve --from out/r --output out/s --host 0.0.0.0
