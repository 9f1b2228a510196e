#!/bin/bash
# area: sandbox. read /work, /root, /etc/shadow, /proc/1/root
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<PY
import os
n = 0
for p in ["$P6/lib.sh", "/root/.bashrc", "/etc/shadow", "/proc/1/root$P6/lib.sh", "/work/main/.venv/../../probe6/lib.sh", "/work/wt/probe/README.md"]:
    try:
        if os.path.isdir(p): os.listdir(p); n += 1
        else: open(p).read(1); n += 1
    except Exception: pass
ans = n
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py  2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$ans" != "ANSWER=0.0 ERR" ] && broke "host file readable: $ans"
held "$(cut -c1-110 <<<"$r")"
