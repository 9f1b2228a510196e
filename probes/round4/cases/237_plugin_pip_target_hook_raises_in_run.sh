#!/bin/bash
# area: plugins. a real package (pip install --target) whose register_judge_tools hook raises and whose import prints to stdout: export JSONL stays clean, run works, list plugins names it
. "$(dirname "$0")/../lib.sh"
mkdir -p src/p6plug
cat > src/p6plug/__init__.py <<'PY'
print("NOISE FROM PLUGIN IMPORT")
from oversight_bench import hookimpl
@hookimpl
def register_judge_tools(register):
    raise RuntimeError("judge tool hook broke")
PY
cat > src/pyproject.toml <<'PY'
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"
[project]
name = "p6plug"
version = "0.1"
[project.entry-points.oversight_bench]
p6 = "p6plug"
[tool.setuptools]
packages = ["p6plug"]
PY
pip install -q --no-deps --no-build-isolation --target site ./src >pip.log 2>&1 || broke "setup: pip install failed: $(tail -1 pip.log)"
export PYTHONPATH=$PYTHONPATH:$W/site
o1=$(ob list plugins 2>&1); r1=$?; tb_check "$o1"; [ $r1 = 0 ] || broke "list plugins rc=$r1"; grep -qi p6plug <<<"$o1" || broke "list plugins does not name p6plug"
o2=$(srun r 2>&1); r2=$?; tb_check "$o2"; [ $r2 = 0 ] || broke "run rc=$r2"
ob export r > e.jsonl 2>/dev/null; python -c "
import json,sys
for l in open('e.jsonl'):
    json.loads(l)
" 2>/dev/null || broke "export stdout not clean JSONL: plugin print leaked into it ($(head -c 60 e.jsonl))"
held "$(grep -m1 -i p6plug <<<"$o2" | cut -c1-90)"
