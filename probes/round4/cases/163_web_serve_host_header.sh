#!/bin/bash
# area: web. DNS rebinding: Host header evil.com refused by serve and view
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1 || broke setup
P=$(freeport); bg_cli s.log serve --from r --output st --port $P; P2=$(freeport); bg_cli v.log view r --port $P2
waitport $P && waitport $P2 || broke "not started"
python - $P $P2 <<'PY'
import httpx, sys
for p in sys.argv[1:]:
    r = httpx.get(f"http://127.0.0.1:{p}/", headers={"Host": "evil.example.com"})
    if r.status_code == 200: print("BROKE: Host evil.example.com served on", p); sys.exit()
print("HELD")
PY
