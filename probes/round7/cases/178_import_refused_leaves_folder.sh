#!/usr/bin/env bash
# an import refused at write time (a speaker that is a number) must remove what it created, so the fixed file imports into the same path
. "$(dirname "$0")/../lib.sh"
python "$P9/helpers/mkcsv.py" names_int "$T/bad.csv"; python "$P9/helpers/mkcsv.py" forged_v "$T/good.csv"
ob import llm-debate "$T/bad.csv" --output "$T/o" >/dev/null 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || broke "bad import rc $rc"
left=$(ls -A "$T/o" 2>/dev/null | tr '\n' ' ')
ob import llm-debate "$T/good.csv" --output "$T/o" >/dev/null 2>"$T/e2"; rc2=$?
[ -n "$left" ] && broke "refused import left '$left' in its new folder; the corrected import then gets rc $rc2: $(head -c 90 $T/e2)"
held
