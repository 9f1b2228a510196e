#!/bin/bash
# area: sandbox. fork then unshare user ns in child via os.unshare (py3.12) or ctypes
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import os, ctypes
libc = ctypes.CDLL(None, use_errno=True)
pid = os.fork()
if pid == 0:
    os._exit(0 if libc.unshare(0x10000000 | 0x00020000) == 0 else 1)
_, st = os.waitpid(pid, 0)
ans = os.waitstatus_to_exitcode(st)
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py  2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$ans" = "ANSWER=0.0 ERR" ] && broke "child created user ns"
held "$(cut -c1-110 <<<"$r")"
