#!/bin/bash
# area: web/bad-input: --judges "," (no names) must be refused, not an open sign-in study
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1
OBTIMEOUT=6 ob serve --from $T/r --output $T/s --judges "," --port 18233 >$T/o 2>$T/e; rc=$?
grep -q Traceback $T/e && broke "traceback"
[ $rc = 2 ] && grep -q '^error:' $T/e && held "$(head -1 $T/e)"
broke "--judges ',' accepted (rc=$rc): serves an open sign-in study: $(grep -m1 'sign in' $T/o)"
