#!/bin/bash
# area: imports. hostile llm-debate CSV 'nan_answer': no traceback, bounded time (<30 s), clean error or import.
. "$(dirname "$0")/../lib.sh"
python $P6/gencsv.py nan_answer in.csv
s=$(date +%s); out=$(T=60 ob import llm-debate in.csv --output imp 2>&1); rc=$?; e=$(( $(date +%s)-s )); tb_check "$out"
[ $rc = 124 ] && broke "hung"; [ $e -gt 30 ] && broke "took ${e}s"; [ $rc -gt 2 ] && broke "rc=$rc"
if [ nan_answer = nan_answer ] && [ $rc = 0 ]; then python - <<'PY' || broke "NaN answer became a verdict"
import sqlite3,sys; c=sqlite3.connect('imp/results.sqlite')
bad=[r for r in c.execute("select * from records where kind='decision'") if '"answer":1' in str(r) or '"answer":2' in str(r)]
sys.exit(1 if bad else 0)
PY
fi
[ $rc = 0 ] && { o2=$(ob view imp --export v 2>&1); tb_check "$o2"; o3=$(ob report imp --output rep --no-figures 2>&1); tb_check "$o3"; }
held "rc=$rc ${e}s $(grep -m1 error: <<<"$out" | cut -c1-80)"
