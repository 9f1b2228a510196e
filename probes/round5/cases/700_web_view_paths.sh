#!/bin/bash
# area: web: view server: traversal, huge/odd path params and query strings never give 500 or kill the server
. "$(dirname "$0")/../lib.sh"
run_small $T/r --protocols qa_without_article,debate >/dev/null 2>&1
PORT=$((20000 + RANDOM % 20000))
python -m oversight_bench.cli view $T/r --port $PORT >$T/srv 2>&1 & _PIDS+=($!)
python - $PORT <<'PY'
import os, sys; sys.path.insert(0, os.environ["P7"]); from webprobe import *
port = int(sys.argv[1]); assert wait(port), "no server"
paths = ["/room/..%2f..%2fetc%2fpasswd", "/room/" + "a" * 8000, "/question/%00%ff%fe", "/run/-1", "/run/99999999999999999999999999",
         "/run/abc", "/run/0", "/?sort=__class__&page=-5&q=((((&page_size=1e999", "/?page=99999999999999999999999999999",
         "/?q=" + "%28" * 3000, "/?sort=" + "x" * 5000 + "&desc=maybe", "/room/%F0%9F%98%80%E2%80%AE", "/view.css?../../x",
         "/?filter[]=1&filter[]=2&task=%00", "/room/%2e%2e"]
bad = []
for p in paths:
    try:
        s, h, d, r = req(port, "GET", p)
        if s >= 500: bad.append(f"{p[:40]} -> {s}")
        if b"root:x:0:0" in d: bad.append(f"{p[:40]} leaked /etc/passwd")
    except Exception as e:
        bad.append(f"{p[:40]} -> {type(e).__name__}")
s, h, d, r = req(port, "GET", "/")
if s != 200: bad.append(f"list after probes -> {s}")
print("BROKE: " + "; ".join(bad) if bad else "HELD")
PY
grep -q Traceback $T/srv && echo "BROKE: server log traceback: $(grep -v '^ ' $T/srv | grep -v INFO | tail -1 | cut -c1-120)"
