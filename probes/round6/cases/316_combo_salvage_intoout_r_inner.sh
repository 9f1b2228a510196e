#!/bin/bash
# area: two commands on one folder / data loss; tries: 'salvage out/r --output out/r/inner': the run's store and files unchanged (refused or written beside only)
. $PROBE/lib.sh; mkrun out/r
h=$(cd out/r && find . -maxdepth 1 -type f | sort | xargs md5sum | md5sum)
OB salvage out/r --output out/r/inner >o 2>e; rc=$?
grep -q Traceback e && { echo "BROKE: traceback $(tail -1 e)"; exit; }
h2=$(cd out/r && find . -maxdepth 1 -type f | sort | xargs md5sum | md5sum)
[ "$h" = "$h2" ] || { echo "BROKE: run files changed/removed (rc=$rc): $(ls out/r | tr '\n' ' ')"; exit; }
OB export out/r >/dev/null 2>e2 || { echo "BROKE: run unreadable afterwards: $(tail -1 e2)"; exit; }
echo "HELD (rc=$rc$( [ $rc = 2 ] && echo ": $(head -1 e | cut -c1-80)"))"
