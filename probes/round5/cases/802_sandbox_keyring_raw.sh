#!/bin/bash
# area: sandbox: add_key / keyctl(JOIN_SESSION_KEYRING) / request_key via raw syscall numbers must fail
. "$(dirname "$0")/../lib.sh"
cd $T; timeout 60 python $P7/sbx.py $P7/cases/sbx/keyring_raw.py > $T/res 2>$T/err; rc=$?
grep -q Traceback $T/err && broke "harness traceback: $(tail -1 $T/err)"

cat $T/res | tail -1
