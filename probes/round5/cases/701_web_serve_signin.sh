#!/bin/bash
# area: web: serve sign-in: forged double-submit cookie, replayed token, foreign Origin, session after sign-out, huge form body, organiser token guesses
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1
PORT=$((20000 + RANDOM % 20000))
python -m oversight_bench.cli serve --from $T/r --output $T/s --port $PORT --token orgtok123456789 >$T/srv 2>&1 & _PIDS+=($!)
python - $PORT <<'PY'
import os, sys, re, http.client; sys.path.insert(0, os.environ["P7"]); from webprobe import *
port = int(sys.argv[1]); assert wait(port), "no server"
bad = []
def get_token():
    s, h, d, r = req(port, "GET", "/")
    ck = r.getheader("set-cookie") or ""
    m = re.search(r'name="csrf" value="([^"]+)"', d.decode())
    cname, cval = ck.split(";")[0].split("=", 1)
    return cname, cval, (m.group(1) if m else cval)
cname, cval, form = get_token()
O = {"Origin": f"http://127.0.0.1:{port}", "Content-Type": "application/x-www-form-urlencoded"}
def signin(cookie, csrf, name="alice", origin=None):
    h = dict(O); h["Cookie"] = f"{cname}={cookie}"
    if origin: h["Origin"] = origin
    s, hh, d, r = req(port, "POST", "/signin", body=f"csrf={csrf}&name={name}", headers=h)
    return s, r.getheader("set-cookie") or ""
# 1 forged: own value in cookie and form
s, ck = signin("forged.abc", "forged.abc")
if s < 400: bad.append(f"forged cookie signed in ({s})")
# 2 a token made for another port (nonce + mac guess)
s, ck = signin(cval.split(".")[0] + ".00000000000000000000000000000000", cval.split(".")[0] + ".00000000000000000000000000000000")
if s < 400: bad.append("mac-less token signed in")
# 3 foreign origin with a valid token
cname, cval, form = get_token()
s, ck = signin(cval, form, origin="http://127.0.0.1:1")
if s < 400: bad.append(f"foreign Origin signed in ({s})")
# 4 valid, then replay
cname, cval, form = get_token()
s, ck = signin(cval, form)
if s >= 400: bad.append(f"valid sign-in refused ({s})")
sess = ck.split(";")[0]
s2, ck2 = signin(cval, form, name="mallory")
if s2 < 400: bad.append("replayed token signed in again")
# 5 session works, then sign out, then reuse
s, h, d, r = req(port, "GET", "/judge", headers={"Cookie": sess})
if s != 200: bad.append(f"/judge with session -> {s}")
csrf = re.search(r'name="csrf" value="([^"]+)"', d.decode())
s, h, d, r = req(port, "POST", "/signout", body=f"csrf={csrf.group(1) if csrf else ''}", headers={**O, "Cookie": sess})
s, h, d, r = req(port, "GET", "/judge", headers={"Cookie": sess})
if s == 200: bad.append("session cookie still works after sign-out")
# 6 huge form body
try:
    cname, cval, form = get_token()
    s, h, d, r = req(port, "POST", "/signin", body="csrf=" + cval + "&name=" + "a" * 30_000_000, headers={**O, "Cookie": f"{cname}={cval}"}, timeout=30)
    if s < 400 and s != 303: bad.append(f"30 MB name -> {s}")
except Exception as e:
    pass
# 7 organiser: wrong token, case variant, bearer
for hd, path in [({}, "/organiser?token=ORGTOK123456789"), ({"Authorization": "Bearer orgtok12345678"}, "/organiser"), ({"Cookie": "token=orgtok123456789x"}, "/organiser")]:
    s, h, d, r = req(port, "GET", path, headers=hd)
    if s == 200: bad.append(f"organiser opened with {hd or path}")
s, h, d, r = req(port, "GET", "/")
if s >= 500: bad.append(f"server broken after probes {s}")
print("BROKE: " + "; ".join(bad) if bad else "HELD")
PY
grep -q Traceback $T/srv && echo "BROKE: server traceback: $(grep -v '^ ' $T/srv | tail -1 | cut -c1-120)"
