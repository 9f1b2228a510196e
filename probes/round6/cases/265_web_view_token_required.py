#!/usr/bin/env python3
# area: web apps; tries: view_token_required
import sys, os, re, time, tempfile, shutil, urllib.parse; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import web
d = tempfile.mkdtemp(dir=__import__('os').environ['PROBE'] + "/tmp"); web.setup_run(d); res = "BROKE: case error"
try:
    s = web.Srv(["view", "out/r", "--token", "tok-SECRET-123456"], d)
    st, h, b = s.req("GET", "/")
    st2, h2, b2 = s.req("GET", "/?token=TOK-SECRET-123456")
    st3, h3, b3 = s.req("GET", "/?token=tok-SECRET-123456")
    tb = s.stop()
    res = f"HELD ({st},{st2},{st3})" if st in (401, 403) and st2 in (401, 403) and st3 in (200, 302, 303) else f"BROKE: no token {st}, wrong-case {st2}, right {st3}"
    if tb and res.startswith("HELD"): res = "BROKE: server traceback on stderr"
finally:
    shutil.rmtree(d, ignore_errors=True)
print(res)
