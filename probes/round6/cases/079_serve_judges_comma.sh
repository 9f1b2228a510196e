#!/bin/bash
# area: bad input; tries: serve --from out/r --output out/s --judges ','
. /work/probe8/lib.sh
mkrun out/r
expect2 serve --from out/r --output out/s --judges ','
