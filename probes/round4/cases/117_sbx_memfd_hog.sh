#!/bin/bash
# area: sandbox. memfd pages 1 GB vs memory_mb=128 (cgroup must count them)
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import os
fd = os.memfd_create("x")
chunk = b"\1" * (1 << 20)
for i in range(1024): os.write(fd, chunk)
ans = 1
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py memory_mb=128 2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$st" = ok ] && broke "1 GB memfd under memory_mb=128 ok: $r"
held "$(cut -c1-110 <<<"$r")"
