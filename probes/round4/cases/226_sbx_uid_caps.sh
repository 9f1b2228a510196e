#!/bin/bash
# area: sandbox. program runs as uid 0 or with capabilities?
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import os
st = open("/proc/self/status").read()
cap = [l for l in st.splitlines() if l.startswith("CapEff")][0].split()[1]
ans = 0 if (os.getuid() != 0 and os.geteuid() != 0 and int(cap, 16) == 0) else f"uid={os.getuid()} cap={cap}"
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py  2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$ans" != "ANSWER=0.0 ERR" ] && broke "sandboxed program has uid 0 / capabilities: $ans"
held "$(cut -c1-110 <<<"$r")"
