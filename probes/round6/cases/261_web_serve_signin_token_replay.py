#!/usr/bin/env python3
# area: web apps; tries: serve_signin_token_replay
import sys, os, re, time, tempfile, shutil, urllib.parse; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import web
d = tempfile.mkdtemp(dir=__import__('os').environ['PROBE'] + "/tmp"); web.setup_run(d); res = "BROKE: case error"
try:
    s = web.Srv(["serve", "--from", "out/r", "--output", "out/s"], d)
    st, h, b = s.req("GET", "/")
    ck = [v.split(";")[0] for k, v in h if k.lower() == "set-cookie"]
    tok = re.search(r'name="csrf" value="([^"]+)"', b)
    if not tok or not ck: res = f"HELD? no sign-in form found (status {st})"
    else:
        t = tok.group(1); cookie = "; ".join(ck)
        r1 = s.req("POST", "/signin", "csrf=" + urllib.parse.quote(t) + "&name=alice", {"Cookie": cookie})
        r2 = s.req("POST", "/signin", "csrf=" + urllib.parse.quote(t) + "&name=mallory", {"Cookie": cookie})
        ok2 = r2[0] in (302, 303) and any(k.lower() == "set-cookie" and "session" in v.lower() for k, v in r2[1])
        res = "BROKE: a used sign-in token signed in a second time" if ok2 else f"HELD (first {r1[0]}, replay {r2[0]})"
    tb = s.stop()
    if tb and res.startswith("HELD"): res = "BROKE: server traceback on stderr"
finally:
    shutil.rmtree(d, ignore_errors=True)
print(res)
