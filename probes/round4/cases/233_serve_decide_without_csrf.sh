#!/bin/bash
# area: web. serve: signed-in judge POSTs /judge/decide and /signout without the session's CSRF token, or with another session's
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1 || broke setup
P=$(freeport); bg_cli s.log serve --from r --output st --port $P; waitport $P || broke "serve not started"
python - $P <<'PY'
import httpx, sys, re
b = f"http://127.0.0.1:{sys.argv[1]}"
def signin(name):
    c = httpx.Client(base_url=b); c.get("/"); n = list(c.cookies.keys())[0]
    r = c.post("/signin", data={"csrf": c.cookies[n], "name": name}); return c
a = signin("alice"); m = signin("mallory")
pa = a.get("/judge").text; pm = m.get("/judge").text
ca = re.findall(r'name="csrf" value="([^"]+)"', pa); cm = re.findall(r'name="csrf" value="([^"]+)"', pm)
item = re.findall(r'name="item" value="([^"]+)"', pa)
if not ca: print("BROKE: setup: no csrf on judge page"); sys.exit()
data = {"item": item[0] if item else "1", "answer": "1", "confidence": "90"}
r1 = a.post("/judge/decide", data=data)
r2 = a.post("/judge/decide", data={**data, "csrf": cm[0] if cm else "x"})
r3 = m.post("/judge/decide", data={**data, "csrf": ca[0]})
r4 = a.post("/signout", data={})
bad = [(n, r.status_code) for n, r in (("no-csrf", r1), ("other-session-csrf", r2), ("victim-csrf-in-attacker-session", r3), ("signout-no-csrf", r4)) if r.status_code < 400]
print("BROKE: accepted " + str(bad) if bad else "HELD")
PY
