#!/bin/bash
# area: sandbox. program raises its own RLIMIT_NPROC/AS (rlimit fallback)
. "$(dirname "$0")/../lib.sh"; export OVERSIGHT_BENCH_SANDBOX_LIMITS=rlimit
cat > prog.py <<'PY'
import resource
try:
    resource.setrlimit(resource.RLIMIT_NPROC, (resource.RLIM_INFINITY, resource.RLIM_INFINITY)); ans = 1
except (ValueError, OSError):
    ans = 0
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py  2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$ans" = "ANSWER=1.0 ERR" ] && broke "raised its hard rlimits"
held "$(cut -c1-110 <<<"$r")"
