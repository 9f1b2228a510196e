#!/usr/bin/env bash
# report twice into the same folder (same runs): second allowed or refused, never loses the first's files silently
. "$(dirname "$0")/../lib.sh"
mkrun "$T/r" || broke setup
ob report "$T/r" --output "$T/rep" --no-figures >/dev/null 2>"$T/e" || broke "report1: $(grep -v '^ ' $T/e|tail -1)"
ob report "$T/r" --output "$T/rep" --no-figures >/dev/null 2>"$T/e"; rc=$?
grep -q Traceback "$T/e" && broke traceback
[ -s "$T/rep/report.md" ] || broke "report.md gone after second report (rc $rc)"
# a report of another run into it: refused
mkrun "$T/r2" --seed 3 || broke setup
ob report "$T/r2" --output "$T/rep" --no-figures >/dev/null 2>"$T/e"; rc2=$?
grep -q Traceback "$T/e" && broke traceback
held "second rc $rc, other-run rc $rc2"
