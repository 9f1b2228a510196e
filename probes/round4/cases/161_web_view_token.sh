#!/bin/bash
# area: web. view --token: requests without/with wrong token refused; token not echoed in pages; traversal paths
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1 || broke setup
P=$(freeport); bg_cli v.log view r --port $P --token SeCrEtViewTok123456
waitport $P || broke "view did not start: $(tail -2 v.log)"
python - $P <<'PY'
import httpx, sys
p = sys.argv[1]; b = f"http://127.0.0.1:{p}"
for path in ["/", "/style.css", "/room/x", "/../../etc/passwd"]:
    r = httpx.get(b + path)
    if r.status_code == 200: print("BROKE: %s open without token" % path); sys.exit()
r = httpx.get(b + "/?token=wrong")
if r.status_code == 200: print("BROKE: wrong token accepted"); sys.exit()
c = httpx.Client(base_url=b, follow_redirects=True)
r = c.get("/?token=SeCrEtViewTok123456")
if r.status_code != 200: print("BROKE: right token refused", r.status_code); sys.exit()
if "SeCrEtViewTok123456" in r.text: print("BROKE: token echoed into the page"); sys.exit()
for path in ["/%2e%2e/%2e%2e/etc/passwd", "/static/..%2f..%2f..%2fetc/passwd", "//etc/passwd", "/r/../../../etc/passwd"]:
    r = c.get(path)
    if "root:x:0" in r.text: print("BROKE: path traversal " + path); sys.exit()
print("HELD")
PY
grep -q "SeCrEtViewTok123456" v.log && echo "BROKE: token printed in log"
