#!/bin/bash
# area: web. serve sign-in: a cookie+form value the server did not issue, a replayed token, a token from another server, cross-origin POST
. "$(dirname "$0")/../lib.sh"
srun r >/dev/null 2>&1 || broke setup
P1=$(freeport); P2=$(freeport)
bg_cli s1.log serve --from r --output st1 --port $P1; bg_cli s2.log serve --from r --output st2 --port $P2
waitport $P1 && waitport $P2 || broke "serve did not start: $(tail -2 s1.log)"
python - $P1 $P2 <<'PY'
import httpx, re, sys
p1, p2 = sys.argv[1], sys.argv[2]
def fresh(p):
    c = httpx.Client(base_url=f"http://127.0.0.1:{p}", follow_redirects=False)
    r = c.get("/"); return c, r
def signed(resp): return "set-cookie" in resp.headers and any(k for k in resp.cookies if "csrf" not in k.lower())
c, r = fresh(p1)
name = [k for k in c.cookies.keys()][0]; tok = c.cookies[name]
# 1. forged token
c2, _ = fresh(p1); c2.cookies.clear(); c2.cookies.set(name, "abc.def")
r = c2.post("/signin", data={"csrf": "abc.def", "name": "mallory"})
if r.status_code < 400: print("BROKE: forged cookie+form signed in", r.status_code, r.headers.get("set-cookie")); sys.exit()
# 2. token issued by server 2 used on server 1
c3, _ = fresh(p2); n3 = list(c3.cookies.keys())[0]; t3 = c3.cookies[n3]
c4 = httpx.Client(base_url=f"http://127.0.0.1:{p1}"); c4.cookies.set(n3, t3)
r = c4.post("/signin", data={"csrf": t3, "name": "mallory"})
if r.status_code < 400: print("BROKE: token from another port's server signed in"); sys.exit()
# 3. cross-origin post with a legit token
r = c.post("/signin", data={"csrf": tok, "name": "alice"}, headers={"Origin": f"http://127.0.0.1:{p2}"})
if r.status_code < 400: print("BROKE: cross-origin sign-in accepted"); sys.exit()
r = c.post("/signin", data={"csrf": tok, "name": "alice"}, headers={"Sec-Fetch-Site": "same-site"})
if r.status_code < 400: print("BROKE: same-site (other port) sign-in accepted"); sys.exit()
# 4. legit then replay
c5, _ = fresh(p1); n5 = list(c5.cookies.keys())[0]; t5 = c5.cookies[n5]
r = c5.post("/signin", data={"csrf": t5, "name": "alice"})
if r.status_code >= 400: print("BROKE: legit sign-in refused", r.status_code, r.text[:80]); sys.exit()
c6 = httpx.Client(base_url=f"http://127.0.0.1:{p1}"); c6.cookies.set(n5, t5)
r = c6.post("/signin", data={"csrf": t5, "name": "bob"})
if r.status_code < 400: print("BROKE: replayed sign-in token accepted"); sys.exit()
# 5. arbitrary session cookie
c7 = httpx.Client(base_url=f"http://127.0.0.1:{p1}"); c7.cookies.set("session", "x"*40)
for k in list(c5.cookies.keys()):
    c7.cookies.set(k, "deadbeef")
r = c7.get("/judge")
if r.status_code == 200: print("BROKE: forged session cookie reached /judge"); sys.exit()
print("HELD")
PY
