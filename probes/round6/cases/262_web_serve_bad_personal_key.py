#!/usr/bin/env python3
# area: web apps; tries: serve_bad_personal_key
import sys, os, re, time, tempfile, shutil, urllib.parse; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import web
d = tempfile.mkdtemp(dir=__import__('os').environ['PROBE'] + "/tmp"); web.setup_run(d); res = "BROKE: case error"
try:
    s = web.Srv(["serve", "--from", "out/r", "--output", "out/s", "--judges", "ann,bob"], d)
    st, h, b = s.req("GET", "/?key=" + "A" * 43)
    st2, h2, b2 = s.req("GET", "/?key=" + urllib.parse.quote("\x00' OR 1=1 --"))
    tb = s.stop()
    res = f"HELD ({st}, {st2})" if st == 403 and st2 == 403 else f"BROKE: bad key gave {st}/{st2}"
    if tb and res.startswith("HELD"): res = "BROKE: server traceback on stderr"
finally:
    shutil.rmtree(d, ignore_errors=True)
print(res)
