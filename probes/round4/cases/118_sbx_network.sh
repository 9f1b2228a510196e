#!/bin/bash
# area: sandbox. connect to a loopback port / DNS from the sandbox
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import socket
try:
    socket.create_connection(("127.0.0.1", 22), timeout=1); ans = 1
except OSError as e:
    ans = 0
try:
    s=socket.socket(); s.settimeout(1); s.connect(("1.1.1.1", 53)); ans = 1
except OSError:
    pass
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py  2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$ans" = "ANSWER=1.0 ERR" ] && broke "network reachable"
held "$(cut -c1-110 <<<"$r")"
