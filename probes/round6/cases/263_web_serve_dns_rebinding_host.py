#!/usr/bin/env python3
# area: web apps; tries: serve_dns_rebinding_host
import sys, os, re, time, tempfile, shutil, urllib.parse; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import web
d = tempfile.mkdtemp(dir=__import__('os').environ['PROBE'] + "/tmp"); web.setup_run(d); res = "BROKE: case error"
try:
    s = web.Srv(["serve", "--from", "out/r", "--output", "out/s"], d)
    st, h, b = s.req("GET", "/", headers={"Host": "evil.example:80"})
    tb = s.stop()
    res = f"HELD ({st})" if st in (400, 403, 421) else f"BROKE: Host evil.example answered {st}"
    if tb and res.startswith("HELD"): res = "BROKE: server traceback on stderr"
finally:
    shutil.rmtree(d, ignore_errors=True)
print(res)
