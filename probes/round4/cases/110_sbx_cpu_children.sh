#!/bin/bash
# area: sandbox. 3 spinning child processes vs cpu_seconds=2,timeout=8: not ok, killed near the CPU limit
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import os, time
for i in range(3):
    if os.fork() == 0:
        while True: pass
t = time.time()
while time.time() - t < 7: pass
ans = 1
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py cpu_seconds=2 timeout=8.0 2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$st" = ok ] && broke "3 children spun past cpu_seconds=2 and result ok ($r)"; [ "${el:-0}" -gt 6 ] && broke "ran ${el}s vs cpu_seconds=2 (3 procs)"
held "$(cut -c1-110 <<<"$r")"
