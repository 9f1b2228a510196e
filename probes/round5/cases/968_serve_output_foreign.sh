#!/bin/bash
# area: output-folders: serve --output into a folder with foreign files: refused, files intact
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1
mkdir $T/s; echo keep > $T/s/notes.txt
OBTIMEOUT=8 ob serve --from $T/r --output $T/s --port $((20000 + RANDOM % 20000)) >$T/o 2>&1; rc=$?
grep -q Traceback $T/o && broke traceback
[ "$(cat $T/s/notes.txt)" = keep ] || broke "foreign file lost"
[ $rc = 2 ] || broke "serve into a foreign folder accepted (rc=$rc)"
held
