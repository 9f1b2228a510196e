#!/usr/bin/env python3
# area: web apps; tries: serve_forged_signin_cookie
import sys, os, re, time, tempfile, shutil, urllib.parse; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import web
d = tempfile.mkdtemp(dir=__import__('os').environ['PROBE'] + "/tmp"); web.setup_run(d); res = "BROKE: case error"
try:
    s = web.Srv(["serve", "--from", "out/r", "--output", "out/s"], d)
    st, h, b = s.req("POST", "/signin", "csrf=abc.def&name=mallory", {"Cookie": "obench_csrf=abc.def; csrf=abc.def; pre_csrf=abc.def"})
    st2, h2, b2 = s.req("GET", "/judge", headers={"Cookie": "; ".join(v.split(";")[0] for k, v in h if k.lower() == "set-cookie")})
    tb = s.stop()
    res = "BROKE: forged cookie signed in" if any(k.lower() == "set-cookie" and "session" in v.lower() for k, v in h) and st in (302, 303) else f"HELD (POST /signin -> {st})"
    if tb and res.startswith("HELD"): res = "BROKE: server traceback on stderr"
finally:
    shutil.rmtree(d, ignore_errors=True)
print(res)
