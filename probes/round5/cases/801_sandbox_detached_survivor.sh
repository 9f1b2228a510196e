#!/bin/bash
# area: sandbox: a double-forked, setsid child exec-ing sleep 4242 must not outlive the sandbox
. "$(dirname "$0")/../lib.sh"
cd $T; timeout 60 python $P7/sbx.py $P7/cases/sbx/detached_survivor.py > $T/res 2>$T/err; rc=$?
grep -q Traceback $T/err && broke "harness traceback: $(tail -1 $T/err)"
sleep 1; pgrep -f "sleep 4242" >/dev/null && { pkill -f "^sleep 4242$"; broke "sleep 4242 outlived its sandbox"; }
cat $T/res | tail -1
