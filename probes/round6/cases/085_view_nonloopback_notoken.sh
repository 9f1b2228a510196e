#!/bin/bash
# area: bad input; tries: view out/r --host 0.0.0.0
. /work/probe8/lib.sh
mkrun out/r
expect2 view out/r --host 0.0.0.0
