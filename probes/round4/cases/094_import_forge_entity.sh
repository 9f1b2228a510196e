#!/bin/bash
# area: imports. variant 'forge_entity' of a forged verified quote (attributes, case, look-alike, <quote> not in story, escaped/newline tags)
. "$(dirname "$0")/../lib.sh"
python $P6/gencsv.py forge_entity in.csv; out=$(ob import llm-debate in.csv --output imp 2>&1); rc=$?; tb_check "$out"
[ $rc = 0 ] || held "refused rc=$rc"
s=$(python - <<'PY'
import sqlite3,re; c=sqlite3.connect('imp/results.sqlite'); n=0
for row in c.execute("select * from records"):
    for v in row:
        if isinstance(v,str):
            for m in re.finditer(r'"shown":"(.*?)","defends', v):
                if re.search(r'<v_passage[^>]*>[^<]*roof', m.group(1), re.I): n+=1
print(n)
PY
); [ "$s" != 0 ] && broke "forged quote shown as <v_passage> ($s)"
ob view imp --export v >/dev/null 2>&1
grep -rhoiE 'class="[^"]*(v_passage|verified|vq)[^"]*"[^>]*>[^<]*roof' v | head -1 | grep -q . && broke "view shows forged quote verified"
held
