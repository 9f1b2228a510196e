#!/bin/bash
# area: sandbox. print 200 MB to stdout: bounded, no hang
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import sys
s = "X" * (1 << 20)
for i in range(200): sys.stdout.write(s)
ans = 1
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py timeout=5.0 2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "${el:-0}" -gt 20 ] && broke "stdout flood took ${el}s"
held "$(cut -c1-110 <<<"$r")"
