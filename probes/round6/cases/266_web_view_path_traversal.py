#!/usr/bin/env python3
# area: web apps; tries: view_path_traversal
import sys, os, re, time, tempfile, shutil, urllib.parse; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import web
d = tempfile.mkdtemp(dir=__import__('os').environ['PROBE'] + "/tmp"); web.setup_run(d); res = "BROKE: case error"
try:
    s = web.Srv(["view", "out/r"], d)
    bad = []
    for p in ["/../../../../etc/passwd", "/static/..%2f..%2f..%2fetc%2fpasswd", "/runs/%2e%2e/%2e%2e/etc/passwd", "/rooms/..%2F..%2Fetc%2Fpasswd", "/view.css/../../etc/passwd"]:
        st, h, b = s.req("GET", p)
        if "root:x:0:0" in b: bad.append(p)
    tb = s.stop()
    res = f"BROKE: /etc/passwd served via {bad}" if bad else "HELD"
    if tb and res.startswith("HELD"): res = "BROKE: server traceback on stderr"
finally:
    shutil.rmtree(d, ignore_errors=True)
print(res)
