#!/bin/bash
# area: web. view server: hostile query params (sort/filter/page), huge path, room with encoded ../ : no 500, no file read outside
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1 || broke setup
P=$(freeport); bg_cli v.log view r --port $P; waitport $P || broke "view not started"
python - $P <<'PY'
import httpx, sys
b = f"http://127.0.0.1:{sys.argv[1]}"
bad = []
for q in ["/?sort=%27;DROP%20TABLE%20records;--", "/?page=-1", "/?page=99999999999999999999", "/?q=" + "a" * 30000,
          "/?sort=question&dir=sideways", "/?filter=%00%ff", "/room/..%2f..%2fetc%2fpasswd", "/room/" + "x" * 30000,
          "/?q=%22%20OR%201%3D1", "/?q=*", "/?q=NEAR(a%20b)", "/?q=%22"]:
    try:
        r = httpx.get(b + q, timeout=20)
        if r.status_code >= 500 or "Traceback" in r.text or "root:x:0" in r.text: bad.append((q[:40], r.status_code))
    except Exception as e:
        bad.append((q[:40], repr(e)[:60]))
print("BROKE: " + str(bad) if bad else "HELD")
PY
grep -q Traceback v.log && echo "BROKE: traceback in server log: $(grep -m1 Error v.log)"
