#!/bin/bash
# area: bad input; tries: elo /nonexistent
. $PROBE/lib.sh
expect2 elo /nonexistent
