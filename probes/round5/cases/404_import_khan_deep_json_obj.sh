#!/bin/bash
# area: imports: Khan llm-debate CSV, mode deep_json_obj (no traceback; rc 0 or 2 with error:; bounded time; no forged verified quote)
. "$(dirname "$0")/../lib.sh"
python $P7/mkkhan.py $T/k.csv deep_json_obj
s=$(date +%s); OBTIMEOUT=40 ob import llm-debate $T/k.csv --output $T/i >$T/o 2>$T/e; rc=$?; e=$(($(date +%s)-s))
grep -q Traceback $T/o $T/e && broke "traceback: $(grep -v '^ ' $T/e | tail -1 | cut -c1-150)"
[ $rc = 124 ] && broke "import ran past 40 s"
[ $e -gt 15 ] && broke "import took ${e}s"
if [ $rc = 2 ]; then grep -q '^error:' $T/e || broke "rc 2 without error: line"; held "refused: $(head -c 150 $T/e)"; fi
[ $rc = 0 ] || broke "rc=$rc: $(tail -1 $T/e | cut -c1-150)"
ob export $T/i > $T/x.jsonl 2>$T/xe || broke "export of the import failed: $(tail -1 $T/xe)"
python - $T/x.jsonl <<'PY' || exit 0
import json, re, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    s = r.get("shown") or ""
    for m in re.finditer(r"<v_passage>(.*?)</v_passage>", s, re.S):
        if "Ishmael" in m.group(1) or "killed" in m.group(1):
            print("BROKE: forged quote shown verified: " + m.group(0)[:120]); sys.exit(1)
PY
ob view $T/i --export $T/vx >/dev/null 2>$T/ve || broke "view --export failed: $(tail -1 $T/ve)"
held "imported in ${e}s"
