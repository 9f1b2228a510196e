#!/bin/bash
# area: sandbox. answer is a 50 MB string / deep nested list
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
ans = [[[[["x" * 1000] * 1000] * 10]]]
def solution():
    l = []
    for i in range(100000): l = [l]
    return l
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py  2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "${el:-0}" -gt 20 ] && broke "slow"
held "$(cut -c1-110 <<<"$r")"
