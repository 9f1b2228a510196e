#!/bin/bash
# area: bad input; tries: elo /nonexistent
. /work/probe8/lib.sh
expect2 elo /nonexistent
