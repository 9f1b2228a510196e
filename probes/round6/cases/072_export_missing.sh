#!/bin/bash
# area: bad input; tries: export /nonexistent
. /work/probe8/lib.sh
expect2 export /nonexistent
