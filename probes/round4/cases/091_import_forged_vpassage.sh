#!/bin/bash
# area: imports. llm-debate row with a debater-written <v_passage> not in the story: must not be stored/shown verified.
. "$(dirname "$0")/../lib.sh"
python $P6/gencsv.py forge_v in.csv; out=$(ob import llm-debate in.csv --output imp 2>&1); rc=$?; tb_check "$out"
[ $rc = 0 ] || broke "import failed rc=$rc"
python - <<'PY' || broke "forged quote stored as verified in 'shown'"
import sqlite3,re,sys; c=sqlite3.connect('imp/results.sqlite')
bad=[r for r, in c.execute("select payload from records") if re.search(r'<v_passage[^>]*>[^<]*roof', r or '', re.I)] if 0 else None
PY
s=$(python - <<'PY'
import sqlite3,re; c=sqlite3.connect('imp/results.sqlite')
cols=[r[1] for r in c.execute("pragma table_info(records)")]
n=0
for row in c.execute("select * from records"):
    for v in row:
        if isinstance(v,str):
            for m in re.finditer(r'"shown":"(.*?)","defends', v):
                if re.search(r'<v_passage[^>]*>[^<]*roof', m.group(1), re.I): n+=1
print(n)
PY
); [ "$s" != 0 ] && broke "forged <v_passage> kept verified in shown ($s)"
ob view imp --export v >/dev/null 2>&1; grep -rl 'roof forever' v >/dev/null || broke "setup: view lacks text"
grep -rhoE '<[^>]*class="[^"]*(v_passage|verified)[^"]*"[^>]*>[^<]*roof forever' v | head -1 | grep -q . && broke "view shows forged quote verified"
held
