#!/bin/bash
# area: sandbox. fork bomb: a verdict (not transient), bounded time
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import os
while True:
    try: os.fork()
    except OSError: pass
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py timeout=3.0 2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$tr" = True ] && broke "fork bomb marked transient"; [ "${el:-0}" -gt 20 ] && broke "fork bomb ran ${el}s"
held "$(cut -c1-110 <<<"$r")"
