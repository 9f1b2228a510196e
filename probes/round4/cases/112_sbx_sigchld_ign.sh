#!/bin/bash
# area: sandbox. (3 zombie children x 1.2 s CPU each, unreaped) SIG_IGN SIGCHLD then spin children (CPU hidden from cutime)
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import os, signal, time
try:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
except Exception:
    pass
for i in range(3):
    if os.fork() == 0:
        while time.process_time() < 1.2: pass
        os._exit(0)
time.sleep(15); ans = 1
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py cpu_seconds=2 timeout=20.0 2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$st" = ok ] && broke "SIGCHLD-ignore children: ok ($r)"
held "$(cut -c1-110 <<<"$r")"
