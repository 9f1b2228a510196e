#!/bin/bash
# area: sandbox. keyctl via session keyring join then add to user keyring (-4) and read by id
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(250, 1, b"p6sess")  # keyctl(KEYCTL_JOIN_SESSION_KEYRING)
ans = 0 if r >= 0 else -ctypes.get_errno()
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py  2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$ans" = "ANSWER=0.0 ERR" ] && broke "keyctl join session succeeded"
held "$(cut -c1-110 <<<"$r")"
