#!/bin/bash
# area: sandbox. unshare(CLONE_NEWUSER) must fail
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
r = libc.unshare(0x10000000)
ans = 0 if r == 0 else -ctypes.get_errno()
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py  2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$ans" = "ANSWER=0.0 ERR" ] && broke "unshare(CLONE_NEWUSER) succeeded"
held "$(cut -c1-110 <<<"$r")"
