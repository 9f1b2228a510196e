#!/usr/bin/env python3
# area: web apps; tries: view_huge_query_params
import sys, os, re, time, tempfile, shutil, urllib.parse; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import web
d = tempfile.mkdtemp(dir=__import__('os').environ['PROBE'] + "/tmp"); web.setup_run(d); res = "BROKE: case error"
try:
    s = web.Srv(["view", "out/r"], d)
    sts = []
    for q in ["?page=-1", "?page=99999999999999999999", "?sort=__class__", "?page=nan", "?filter=" + "a" * 60000, "?q=%ff%fe", "?page=1&page=2"]:
        try: sts.append(s.req("GET", "/" + q)[0])
        except Exception as e: sts.append(type(e).__name__)
    tb = s.stop()
    res = f"BROKE: server error {sts}" if any(x == 500 or isinstance(x, str) for x in sts) or tb else f"HELD ({sts})"
    if tb and res.startswith("HELD"): res = "BROKE: server traceback on stderr"
finally:
    shutil.rmtree(d, ignore_errors=True)
print(res)
