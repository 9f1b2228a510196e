#!/bin/bash
# area: stores: a store whose 'records' table is replaced by a VIEW over an endless recursive CTE (and 'calls' by a zeroblob(1e9) view): readers must refuse or stay bounded
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1
python - $T/r/results.sqlite <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
cols = [r[1] for r in c.execute("pragma table_info(records)")]
c.execute("alter table records rename to records_old")
sel = ", ".join(f"r.{x}" for x in cols)
c.execute(f"create view records as with recursive n(i) as (select 1 union all select i+1 from n) select {sel} from n, records_old r")
c.commit()
PY
bad=""
for cmd in "export $T/r" "report $T/r --no-figures --output $T/rep" "view $T/r --export $T/vx" "salvage $T/r --output $T/s"; do
  d0=$(df -k --output=used /var/tmp | tail -1)
  s=$(date +%s); OBTIMEOUT=8 ob $cmd >$T/o 2>$T/e; rc=$?; e=$(($(date +%s)-s))
  grep -q Traceback $T/e && bad="$bad [${cmd%% *}: traceback $(grep -v '^ ' $T/e | tail -1 | cut -c1-80)]"
  [ $rc = 124 ] && bad="$bad [${cmd%% *}: ran past 8 s (killed), its SQLite sort spills an endless temp file to /var/tmp (~50 MB/s, see RESULTS)]"
  [ $(stat -c %s $T/o) -gt 50000000 ] && bad="$bad [${cmd%% *}: output $(stat -c %s $T/o) B]"
  rm -f $T/o
done
[ -n "$bad" ] && broke "$bad"
held
