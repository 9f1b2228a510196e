#!/bin/bash
# area: bad input; tries: export out/r --preferences --pairs bogus
. $PROBE/lib.sh
mkrun out/r
expect2 export out/r --preferences --pairs bogus
