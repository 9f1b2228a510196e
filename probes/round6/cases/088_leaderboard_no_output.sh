#!/bin/bash
# area: bad input; tries: leaderboard out/r
. /work/probe8/lib.sh
mkrun out/r
expect2 leaderboard out/r
