#!/bin/bash
# area: plugins. register_tasks hook calls sys.exit -> one warning naming the plugin; list plugins / list tasks / a small run still work
. "$(dirname "$0")/../lib.sh"
mkdir -p site/evilplug site/evilplug-0.1.dist-info
cat > site/evilplug/__init__.py <<'PY'
from oversight_bench import hookimpl
import sys
@hookimpl
def register_tasks(register):
    sys.exit("bye")
PY
printf 'Metadata-Version: 2.1\nName: evilplug\nVersion: 0.1\n' > site/evilplug-0.1.dist-info/METADATA
printf '[oversight_bench]\nevil = evilplug\n' > site/evilplug-0.1.dist-info/entry_points.txt
export PYTHONPATH=$PYTHONPATH:$W/site
o1=$(ob list plugins 2>&1); r1=$?; tb_check "$o1"; [ $r1 = 0 ] || broke "list plugins rc=$r1: $(tail -1 <<<"$o1" | cut -c1-100)"
grep -qi evilplug <<<"$o1" || broke "list plugins does not name evilplug"
o2=$(ob list tasks 2>&1); r2=$?; tb_check "$o2"; [ $r2 = 0 ] || broke "list tasks rc=$r2: $(tail -1 <<<"$o2" | cut -c1-100)"
o3=$(srun r 2>&1); r3=$?; tb_check "$o3"; [ $r3 = 0 ] || broke "run rc=$r3: $(tail -1 <<<"$o3" | cut -c1-100)"
o4=$(ob run --help 2>&1); r4=$?; tb_check "$o4"; [ $r4 = 0 ] || broke "run --help rc=$r4"
held "$(grep -i -m1 evilplug <<<"$o3$o1" | cut -c1-100)"
