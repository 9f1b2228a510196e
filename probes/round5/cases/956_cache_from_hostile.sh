#!/bin/bash
# area: stores: --cache-from a store whose cached responses are hostile (wrong types, NaN, huge), itself, and a missing folder
. "$(dirname "$0")/../lib.sh"
serve ok
J="openai:m,base_url=http://127.0.0.1:$PORT/v1,api_key=k,max_retries=0,timeout=5"
run_small $T/src --judge "$J" >/dev/null 2>&1 || broke "setup"
python - $T/src/results.sqlite <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); rows = c.execute("select key from calls").fetchall()
vals = ['{"choices": [{"index": 0, "message": {"content": 5}}]}', '[]']
for (k,), v in zip(rows, vals): c.execute("update calls set response=? where key=?", (v, k))
c.commit()
PY
bad=""
run_small $T/r --judge "$J" --cache-from $T/src >$T/o 2>&1; rc=$?; grep -q Traceback $T/o && bad="$bad [hostile cache traceback: $(grep -v '^ ' $T/o | tail -1 | cut -c1-90)]"
run_small $T/r2 --judge "$J" --cache-from $T/r2 >$T/o 2>&1; rc2=$?; grep -q Traceback $T/o && bad="$bad [self cache traceback]"
run_small $T/r3 --judge "$J" --cache-from $T/nowhere >$T/o 2>&1; rc3=$?; grep -q Traceback $T/o && bad="$bad [missing cache traceback]"
[ $rc3 = 2 ] || bad="$bad [missing --cache-from accepted rc=$rc3]"
[ -n "$bad" ] && broke "$bad"
held "hostile=$rc self=$rc2 missing=$rc3"
