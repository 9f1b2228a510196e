#!/bin/bash
# area: bad input; tries: leaderboard out/r
. $PROBE/lib.sh
mkrun out/r
expect2 leaderboard out/r
