#!/bin/bash
# area: plugins: registers a model whose name property raises, and a model named scripted
. "$(dirname "$0")/../lib.sh"; . $P7/mkplugin.sh
cat > $T/src.py <<'PY'
from oversight_bench.hookspecs import hookimpl
class M:
    @property
    def name(self): raise ValueError("boom")
@hookimpl
def register_models(register):
    register("scripted", object())
    register("ok_name", M())
PY
mkplugin $T/site badmodel_name_prop $T/src.py
ob list plugins >$T/lp 2>$T/lpe; rc=$?
grep -q Traceback $T/lp $T/lpe && broke "list plugins traceback: $(grep -v '^ ' $T/lpe | tail -1 | cut -c1-120)"
[ $rc = 0 ] || broke "list plugins rc=$rc: $(tail -1 $T/lpe | cut -c1-150)"
grep -qi "badmodel_name_prop" $T/lp $T/lpe || broke "list plugins does not name the broken plugin"
run_small $T/r >$T/o 2>$T/e; rc=$?
grep -q Traceback $T/o $T/e && broke "run traceback: $(grep -v '^ ' $T/e | tail -1 | cut -c1-120)"
[ $rc = 0 ] || broke "run rc=$rc with a broken plugin installed: $(tail -1 $T/e | cut -c1-150)"
ob export $T/r >$T/x 2>$T/xe || broke "export rc=$?"
python -c "import json,sys;[json.loads(l) for l in open('$T/x')]" 2>/dev/null || broke "export stdout is not clean JSONL with the plugin installed"

held "$(grep -i badmodel_name_prop $T/lp | head -1 | cut -c1-120)"
