#!/usr/bin/env python3
# area: web apps; tries: view_dns_rebinding_host
import sys, os, re, time, tempfile, shutil, urllib.parse; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import web
d = tempfile.mkdtemp(dir=__import__('os').environ['PROBE'] + "/tmp"); web.setup_run(d); res = "BROKE: case error"
try:
    s = web.Srv(["view", "out/r"], d)
    st, h, b = s.req("GET", "/", headers={"Host": "evil.example"})
    tb = s.stop()
    res = f"HELD ({st})" if st in (400, 403, 421) else f"BROKE: Host evil.example answered {st}"
    if tb and res.startswith("HELD"): res = "BROKE: server traceback on stderr"
finally:
    shutil.rmtree(d, ignore_errors=True)
print(res)
