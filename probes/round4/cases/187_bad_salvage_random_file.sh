#!/bin/bash
# area: stores. salvage of a results.sqlite that is 5000 random bytes: no traceback; says nothing readable (rc 0 = "0 jobs salvaged" accepted)
. "$(dirname "$0")/../lib.sh"
mkdir d; head -c 5000 /dev/urandom > d/results.sqlite
out=$(ob salvage d --output s 2>&1); rc=$?; tb_check "$out"; [ $rc -gt 2 ] && broke "rc=$rc"
grep -q "0 job" <<<"$out" || [ $rc != 0 ] || broke "claims records from random bytes"
held "rc=$rc"
