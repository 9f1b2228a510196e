#!/bin/bash
# area: sandbox. 8 spinning threads (one process) vs cpu_seconds=1
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import threading, time
def spin():
    while True: pass
for i in range(8): threading.Thread(target=spin, daemon=True).start()
time.sleep(12); ans = 1
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py cpu_seconds=1 timeout=15.0 2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$st" = ok ] && broke "threads spun past cpu_seconds=1: $r"
held "$(cut -c1-110 <<<"$r")"
