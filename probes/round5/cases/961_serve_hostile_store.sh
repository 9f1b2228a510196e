#!/bin/bash
# area: web/stores: serve --from a hostile store (script tags, forged markup in speaker/shown, decision as a list): pages escaped, no 500
. "$(dirname "$0")/../lib.sh"
run_small $T/r --protocols debate >/dev/null 2>&1
python $P7/mutstore.py $T/r/results.sqlite html_xss
PORT=$((20000 + RANDOM % 20000))
python -m oversight_bench.cli serve --from $T/r --output $T/s --port $PORT >$T/srv 2>&1 & _PIDS+=($!)
python - $PORT <<'PY'
import os, sys, re; sys.path.insert(0, os.environ["P7"]); from webprobe import *
port = int(sys.argv[1])
if not wait(port): print("HELD: serve refused the hostile store at start"); sys.exit()
s, h, d, r = req(port, "GET", "/")
ck = (r.getheader("set-cookie") or "").split(";")[0]; cname, cval = ck.split("=", 1)
s, h, d, r = req(port, "POST", "/signin", body=f"csrf={cval}&name=alice", headers={"Origin": f"http://127.0.0.1:{port}", "Content-Type": "application/x-www-form-urlencoded", "Cookie": ck})
sess = (r.getheader("set-cookie") or "").split(";")[0]
s, h, d, r = req(port, "GET", "/judge", headers={"Cookie": sess})
t = d.decode(errors="replace")
bad = []
if s >= 500: bad.append(f"/judge -> {s}")
if re.search(r"<script>alert|<img src=x|<b onmouseover", t): bad.append("unescaped markup on /judge")
print("BROKE: " + "; ".join(bad) if bad else f"HELD: /judge {s}")
PY
grep -q Traceback $T/srv && echo "BROKE: server traceback: $(grep -v '^ ' $T/srv | tail -1 | cut -c1-120)"
