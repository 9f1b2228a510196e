#!/bin/bash
# area: sandbox. fill /tmp past 64 MB and /dev/shm past 16 MB: refused (ENOSPC/EFBIG), host untouched
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import os
def fill(d, mb):
    n = 0
    try:
        for i in range(mb):
            with open(f"{d}/f{i}", "wb") as f: f.write(b"\0" * (1 << 20))
            n += 1
    except OSError:
        pass
    return n
a = fill("/tmp", 100); b = fill("/dev/shm", 40)
ans = 1 if (a >= 100 or b >= 40) else 0
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py  2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$ans" = "ANSWER=1.0 ERR" ] && broke "wrote >64 MB to /tmp or >16 MB to /dev/shm: $r"
held "$(cut -c1-110 <<<"$r")"
