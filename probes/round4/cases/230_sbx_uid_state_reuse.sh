#!/bin/bash
# area: sandbox. sandbox A leaves a file in /dev/shm and a SysV shm segment; sandbox B (same slot reused) must not see them
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import os, ctypes
libc = ctypes.CDLL(None, use_errno=True)
seen = 0
try:
    if "p6mark" in os.listdir("/dev/shm"): seen += 1
    open("/dev/shm/p6mark", "w").write("x")
except OSError: pass
if libc.shmget(0x5036, 4096, 0) >= 0: seen += 10
libc.shmget(0x5036, 4096, 0o1000 | 0o666)  # IPC_CREAT
ans = seen
PY
python $P6/sbx.py prog.py >/dev/null 2>&1; r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py  2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$ans" != "ANSWER=0.0 ERR" ] && broke "state of an earlier sandbox visible: $ans"
held "$(cut -c1-110 <<<"$r")"
