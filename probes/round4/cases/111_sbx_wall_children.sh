#!/bin/bash
# area: sandbox. children that ignore signals and sleep, timeout=2
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import os, signal, time
signal.signal(signal.SIGALRM, signal.SIG_IGN); signal.signal(signal.SIGTERM, signal.SIG_IGN)
for i in range(3):
    if os.fork() == 0:
        os.setsid(); time.sleep(100)
time.sleep(100); ans = 1
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py timeout=2.0 2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$st" = ok ] && broke "ok past timeout"; [ "${el:-0}" -gt 6 ] && broke "wall ${el}s vs timeout=2"
held "$(cut -c1-110 <<<"$r")"
