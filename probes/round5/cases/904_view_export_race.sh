#!/bin/bash
# area: concurrency/output-folders: two view --export and two salvage into the same new folder at once
. "$(dirname "$0")/../lib.sh"
run_small $T/r --protocols qa_without_article,debate >/dev/null 2>&1
( ob view $T/r --export $T/v >$T/o1 2>&1; echo $? > $T/r1 ) & ( ob view $T/r --export $T/v >$T/o2 2>&1; echo $? > $T/r2 ) &
( ob salvage $T/r --output $T/s >$T/o3 2>&1; echo $? > $T/r3 ) & ( ob salvage $T/r --output $T/s >$T/o4 2>&1; echo $? > $T/r4 ) &
wait
grep -q Traceback $T/o? && broke "traceback: $(grep -hv '^ ' $(grep -l Traceback $T/o? | head -1) | tail -1 | cut -c1-120)"
[ -f $T/v/index.html ] || broke "no index.html after the race (rc $(cat $T/r1),$(cat $T/r2))"
ob export $T/s >/dev/null 2>&1 || broke "salvaged store unreadable after the race (rc $(cat $T/r3),$(cat $T/r4))"
held "view rc $(cat $T/r1),$(cat $T/r2) salvage rc $(cat $T/r3),$(cat $T/r4)"
