#!/bin/bash
# area: bad input; tries: export /nonexistent
. $PROBE/lib.sh
expect2 export /nonexistent
