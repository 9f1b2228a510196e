#!/bin/bash
# area: imports. NYU importer, hostile 'symlink_member' dataset: no traceback, bounded time/memory, no forged/empty verified quote, no file written outside
. "$(dirname "$0")/../lib.sh"
python $P6/gennyu.py symlink_member nyu || broke "setup"
s=$(date +%s); out=$( { /usr/bin/time -f 'MAXRSS=%M' nice timeout 60 python -m oversight_bench.cli import nyu-debate nyu --output imp; } 2>&1); rc=$?; e=$(( $(date +%s)-s ))
tb_check "$out"; [ $rc = 124 ] && broke "hung"; [ $rc -gt 2 ] && broke "rc=$rc"
rss=$(grep -o 'MAXRSS=[0-9]*' <<<"$out" | cut -d= -f2); [ "${rss:-0}" -gt 600000 ] && broke "max RSS ${rss} KB"
[ -e escape.json ] || [ -e ../escape.json ] && broke "tar member written outside"
if [ $rc = 0 ]; then
n=$(python - <<'PY'
import sqlite3,re; c=sqlite3.connect('imp/results.sqlite'); n=0
for (v,) in c.execute("select data from records where kind='turn'"):
    for m in re.finditer(r'"shown":"(.*?)","defends', v):
        if re.search(r'<v_passage[^>]*>([^<]*roof[^<]*|\s*)</v_passage', m.group(1), re.I): n+=1
for (v,) in c.execute("select data from records where kind='decision'"):
    if 'NaN' in v or 'Infinity' in v: n+=100
print(n)
PY
); [ "$n" != 0 ] && broke "forged/empty quote verified or non-finite belief stored ($n)"
o2=$(ob view imp --export v 2>&1); tb_check "$o2"
fi
held "rc=$rc ${e}s rss=${rss}KB $(grep -m1 error: <<<"$out" | cut -c1-70)"
