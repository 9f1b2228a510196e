#!/bin/bash
# area: combo: a store damaged mid-file, salvaged, then the salvaged store read by report/view/export/resume, then salvaged again
. "$(dirname "$0")/../lib.sh"
run_small $T/r --protocols qa_without_article,debate --limit 2 >/dev/null 2>&1
python - $T/r/results.sqlite <<'PY'
import sys, os
p = sys.argv[1]; b = bytearray(open(p, "rb").read())
for off in range(len(b) // 2, len(b) // 2 + 4096): b[off] = 0x41
open(p, "wb").write(bytes(b))
PY
ob salvage $T/r --output $T/s >$T/o 2>&1; rc=$?; grep -q Traceback $T/o && broke "salvage traceback"
[ -f $T/s/results.sqlite ] || held "salvage refused rc=$rc (nothing readable)"
for c in "report $T/s --no-figures --output $T/rep" "view $T/s --export $T/vx" "export $T/s" "salvage $T/s --output $T/s2"; do
  ob $c >$T/o 2>&1; rc=$?; grep -q Traceback $T/o && broke "${c%% *} on salvaged: traceback"; [ $rc = 0 ] || broke "${c%% *} on salvaged rc=$rc: $(tail -1 $T/o)"
done
run_small $T/s --protocols qa_without_article,debate --limit 2 >$T/o 2>&1; rc=$?; grep -q Traceback $T/o && broke "resume of salvaged traceback"
[ $rc = 0 ] || broke "resume of salvaged rc=$rc: $(tail -1 $T/o | cut -c1-150)"
held
