#!/bin/bash
# area: combo: a run against a 500-storm server fails; the same command after the server recovers (same URL) finishes every job, no duplicates; report/view read it
. "$(dirname "$0")/../lib.sh"
export FIXPORT=$((30000 + RANDOM % 20000))
serve status 500
J="openai:m,base_url=http://127.0.0.1:$FIXPORT/v1,api_key=k,max_retries=1,timeout=3"
R() { ob run --judge "$J" --tasks boolq --protocols qa_without_article --limit 2 --quiet --output $T/r; }
R >$T/o1 2>&1; rc1=$?
kill ${_PIDS[0]}; wait ${_PIDS[0]} 2>/dev/null; rm -f $T/port; sleep 0.3
serve ok
R >$T/o2 2>&1; rc2=$?
grep -q Traceback $T/o1 $T/o2 && broke traceback
[ $rc1 != 0 ] || broke "the 500 storm run reported success"
[ $rc2 = 0 ] || broke "resume after recovery rc=$rc2: $(tail -1 $T/o2)"
n=$(python -c "import sqlite3;print(sqlite3.connect('$T/r/results.sqlite').execute(\"select count(*) from records where kind='decision'\").fetchone()[0])")
[ "$n" = 4 ] || broke "expected 4 decisions after resume, got $n"
R >$T/o3 2>&1; grep -q "4 already stored" $T/o3 || broke "second resume did not find the 4 jobs stored: $(grep jobs: $T/o3)"
held "rc1=$rc1 rc2=$rc2"
