#!/bin/bash
# area: stores: 'questions' and 'calls' replaced by views over an endless recursive CTE (records intact): resume, judge --from, report, salvage must stay bounded
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1
python - $T/r/results.sqlite <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for t in ("questions", "calls"):
    cols = [r[1] for r in c.execute(f"pragma table_info({t})")]
    c.execute(f"alter table {t} rename to {t}_old")
    c.execute(f"create view {t} as with recursive n(i) as (select 1 union all select i+1 from n) select " + ", ".join(f"o.{x}" for x in cols) + f" from n, {t}_old o")
c.commit()
PY
bad=""
for cmd in "report $T/r --no-figures --output $T/rep" "judge --from $T/r --judge scripted:default --quiet --output $T/j" "export $T/r" "salvage $T/r --output $T/s"; do
  OBTIMEOUT=8 ob $cmd >$T/o 2>$T/e; rc=$?
  grep -q Traceback $T/e && bad="$bad [${cmd%% *}: traceback]"
  [ $rc = 124 ] && bad="$bad [${cmd%% *}: ran past 8 s]"
  rm -f $T/o
done
OBTIMEOUT=8 run_small $T/r >$T/o 2>&1; rc=$?; [ $rc = 124 ] && bad="$bad [resume: ran past 8 s]"; grep -q Traceback $T/o && bad="$bad [resume traceback]"
[ -n "$bad" ] && broke "$bad"
held
