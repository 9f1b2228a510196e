#!/bin/bash
# area: sandbox. kill(-1, SIGKILL) inside the sandbox: only the sandbox dies; supervisor returns a verdict
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import os, signal
os.kill(-1, signal.SIGKILL)
ans = 1
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py  2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
kill -0 $$ 2>/dev/null || broke "host shell killed"
held "$(cut -c1-110 <<<"$r")"
