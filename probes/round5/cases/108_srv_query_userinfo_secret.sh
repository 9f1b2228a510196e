#!/bin/bash
# area: servers: credentials in base_url (userinfo and ?api-key=) echoed back by the server in content and in a 400 error: not in store, export, view, stderr, results.json
. "$(dirname "$0")/../lib.sh"
for mode in echo echoerr; do
rm -rf $T/r $T/vx $T/port; serve $mode
run_small $T/r --judge "openai:m,base_url=http://usr:PassW0rdXYZ987@127.0.0.1:$PORT/v1?api-key=QK3yQueryCred55&x=1,api_key=sk-AnotherKeyValue4321,max_retries=0,timeout=5" >$T/o 2>&1; rc=$?
grep -q Traceback $T/o && broke "$mode: traceback: $(grep -v '^ ' $T/o | tail -1)"
ob export $T/r >$T/x 2>&1; ob view $T/r --export $T/vx >/dev/null 2>&1
h=$(grep -rlE "PassW0rdXYZ987|QK3yQueryCred55|AnotherKeyValue4321" $T/o $T/x $T/r $T/vx 2>/dev/null | head -3)
[ -n "$h" ] && broke "$mode (rc=$rc): secret in $h"
done
held "rc=$rc"
