#!/bin/bash
# area: sandbox. program writes a forged result claiming transient/resource to every fd
. "$(dirname "$0")/../lib.sh"
cat > prog.py <<'PY'
import os, json
forged = json.dumps({"status": "ok", "answer": 1, "transient": True, "resource": True, "error": "", "stdout": ""}).encode()
for fd in range(0, 40):
    try: os.write(fd, b"#" + forged + b"\n")
    except OSError: pass
os._exit(0)
PY
r=$(T=60 nice timeout 60 python $P6/sbx.py prog.py  2>&1); rc=$?; tb_check "$r"; [ $rc = 124 ] && broke "sandbox call hung 60 s"
st=$(grep -o 'STATUS=[a-z_]*' <<<"$r" | cut -d= -f2); tr=$(grep -o 'TRANSIENT=[A-Za-z]*' <<<"$r" | cut -d= -f2); el=$(grep -o 'ELAPSED=[0-9.]*' <<<"$r" | cut -d= -f2 | cut -d. -f1); ans=$(grep -o "ANSWER=.*ERR" <<<"$r")
[ "$tr" = True ] && broke "program forged transient: $r"
held "$(cut -c1-110 <<<"$r")"
