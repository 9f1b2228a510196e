#!/usr/bin/env bash
# hostile-but-valid store: records data:round=1.5 -> salvage, report, view --export, export, resume: one line or success, no traceback
. "$(dirname "$0")/../lib.sh"
mkrun "$T/r" || broke setup
python "$P9/helpers/mutate.py" "$T/r/results.sqlite" records 'data:round=1.5' || broke "mutate failed"
for c in "salvage $T/r --output $T/s" "report $T/r --output $T/rep --no-figures" "view --export $T/site $T/r" "export $T/r" "export $T/r --preferences --pairs all"; do
  ob $c >/dev/null 2>"$T/e"; rc=$?
  grep -q Traceback "$T/e" && broke "${c%% *}: traceback: $(grep -v '^ ' $T/e | tail -1 | cut -c1-120)"
  [ $rc -le 2 ] || broke "${c%% *}: rc $rc"
done
mkrun "$T/r"; rc=$?; grep -q Traceback "$T/mkrun.err" && broke "resume: traceback: $(grep -v '^ ' $T/mkrun.err | tail -1 | cut -c1-120)"
held
