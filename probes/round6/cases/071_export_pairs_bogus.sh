#!/bin/bash
# area: bad input; tries: export out/r --preferences --pairs bogus
. /work/probe8/lib.sh
mkrun out/r
expect2 export out/r --preferences --pairs bogus
