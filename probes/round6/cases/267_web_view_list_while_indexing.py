#!/usr/bin/env python3
# area: web apps; tries: view_list_while_indexing
import sys, os, re, time, tempfile, shutil, urllib.parse; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import web
d = tempfile.mkdtemp(dir=__import__('os').environ['PROBE'] + "/tmp"); web.setup_run(d); res = "BROKE: case error"
try:
    s = web.Srv(["view", "out/r"], d)
    import threading
    t0 = time.time(); r = s.req("GET", "/", timeout=30); t1 = time.time() - t0
    tb = s.stop()
    res = f"HELD (list in {t1:.1f}s, {r[0]})" if t1 < 5 and r[0] == 200 else f"BROKE: list took {t1:.1f}s status {r[0]}"
    if tb and res.startswith("HELD"): res = "BROKE: server traceback on stderr"
finally:
    shutil.rmtree(d, ignore_errors=True)
print(res)
