#!/bin/bash
# area: web: view --token: no/wrong/case-changed/prefix token refused on every route; token never written into a page
. "$(dirname "$0")/../lib.sh"
run_small $T/r >/dev/null 2>&1
PORT=$((20000 + RANDOM % 20000))
python -m oversight_bench.cli view $T/r --port $PORT --token Tok3nSecretVal >$T/srv 2>&1 & _PIDS+=($!)
python - $PORT <<'PY'
import os, sys; sys.path.insert(0, os.environ["P7"]); from webprobe import *
port = int(sys.argv[1]); assert wait(port)
bad = []
for path, hd in [("/", {}), ("/run/0", {}), ("/view.css", {}), ("/?token=tok3nsecretval", {}), ("/?token=Tok3nSecretVa", {}), ("/", {"Authorization": "Bearer Tok3nSecretValX"}), ("/", {"Cookie": "token=Tok3nSecretVal "}), ("/room/x?token=", {})]:
    s, h, d, r = req(port, "GET", path, headers=hd)
    if s == 200 and path != "/view.css": bad.append(f"{path} {hd} -> 200")
s, h, d, r = req(port, "GET", "/?token=Tok3nSecretVal")
ck = (r.getheader("set-cookie") or "").split(";")[0]
s2, h2, d2, r2 = req(port, "GET", "/", headers={"Cookie": ck} if ck else {})
body = (d + d2).decode(errors="replace")
if s not in (200, 303, 302, 307): bad.append(f"right token -> {s}")
if "Tok3nSecretVal" in body: bad.append("token written into a page")
print("BROKE: " + "; ".join(bad) if bad else "HELD")
PY
