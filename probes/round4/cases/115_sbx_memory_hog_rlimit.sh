#!/bin/bash
# area: sandbox. (rlimit fallback) allocate 2 GB vs memory_mb=128: failure (memory), not transient
. "$(dirname "$0")/../lib.sh"; export OVERSIGHT_BENCH_SANDBOX_LIMITS=rlimit
cat > prog.py <<'PY'
x = []
for i in range(2048):
    x.append(bytearray(1 << 20))
ans = len(x)
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py memory_mb=128 2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$tr" = True ] && broke "memory exhaustion transient"; [ "$st" = ok ] && broke "2 GB allocated under memory_mb=128"
held "$(cut -c1-110 <<<"$r")"
