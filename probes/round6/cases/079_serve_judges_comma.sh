#!/bin/bash
# area: bad input; tries: serve --from out/r --output out/s --judges ','
. $PROBE/lib.sh
mkrun out/r
expect2 serve --from out/r --output out/s --judges ','
