#!/bin/bash
# area: sandbox. double-forked setsid daemon must not outlive the sandbox
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import os, time, subprocess
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp("python3", ["python3", "-c", "import time; time.sleep(30) # p6_daemon_marker_zz"])
    os._exit(0)
time.sleep(0.3); ans = 1
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py timeout=2.0 2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
sleep 1; pgrep -f p6_daemon_marker_zz >/dev/null && { pkill -f p6_daemon_marker_zz; broke "daemon outlived sandbox"; }
held "$(cut -c1-110 <<<"$r")"
