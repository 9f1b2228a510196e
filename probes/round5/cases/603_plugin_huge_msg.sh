#!/bin/bash
# area: plugins: raises at import with a 5 MB multi-line message
. "$(dirname "$0")/../lib.sh"; . $P7/mkplugin.sh
cat > $T/src.py <<'PY'
raise RuntimeError(("line\n" + "x" * 100) * 50000)
PY
mkplugin $T/site badhuge_msg $T/src.py
ob list plugins >$T/lp 2>$T/lpe; rc=$?
grep -q Traceback $T/lp $T/lpe && broke "list plugins traceback: $(grep -v '^ ' $T/lpe | tail -1 | cut -c1-120)"
[ $rc = 0 ] || broke "list plugins rc=$rc: $(tail -1 $T/lpe | cut -c1-150)"
grep -qi "badhuge_msg" $T/lp $T/lpe || broke "list plugins does not name the broken plugin"
run_small $T/r >$T/o 2>$T/e; rc=$?
grep -q Traceback $T/o $T/e && broke "run traceback: $(grep -v '^ ' $T/e | tail -1 | cut -c1-120)"
[ $rc = 0 ] || broke "run rc=$rc with a broken plugin installed: $(tail -1 $T/e | cut -c1-150)"
ob export $T/r >$T/x 2>$T/xe || broke "export rc=$?"
python -c "import json,sys;[json.loads(l) for l in open('$T/x')]" 2>/dev/null || broke "export stdout is not clean JSONL with the plugin installed"
[ $(wc -c < $T/lpe) -lt 200000 ] && [ $(wc -c < $T/lp) -lt 200000 ] || broke "list plugins printed $(wc -c < $T/lp)+$(wc -c < $T/lpe) bytes"
held "$(grep -i badhuge_msg $T/lp | head -1 | cut -c1-120)"
