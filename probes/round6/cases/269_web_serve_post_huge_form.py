#!/usr/bin/env python3
# area: web apps; tries: serve_post_huge_form
import sys, os, re, time, tempfile, shutil, urllib.parse; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import web
d = tempfile.mkdtemp(dir=__import__('os').environ['PROBE'] + "/tmp"); web.setup_run(d); res = "BROKE: case error"
try:
    s = web.Srv(["serve", "--from", "out/r", "--output", "out/s"], d)
    try: st = s.req("POST", "/signin", "name=" + "a" * 5_000_000 + "&csrf=x")[0]
    except Exception as e: st = type(e).__name__
    st2 = s.req("GET", "/")[0]
    tb = s.stop()
    res = f"HELD ({st}, then {st2})" if st2 == 200 and not tb else f"BROKE: after huge form: {st}, server {st2}, tb={tb}"
    if tb and res.startswith("HELD"): res = "BROKE: server traceback on stderr"
finally:
    shutil.rmtree(d, ignore_errors=True)
print(res)
