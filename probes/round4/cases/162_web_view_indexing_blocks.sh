#!/bin/bash
# area: web. A big store (inflated to ~150k records): while view indexes, the list and a room request still answer quickly
. "$(dirname "$0")/../lib.sh"
ob run $SJ --tasks boolq --limit 4 --protocols qa_without_article,debate --rounds 1 --best-of-n 1 --quiet --output r >/dev/null 2>&1 || broke setup
python - <<'PY'
import sqlite3; c = sqlite3.connect("r/results.sqlite")
cols = [r[1] for r in c.execute("pragma table_info(records)") if r[1] != "id"]
sel = ", ".join("job_key || '|v' || :n" if k == "job_key" else k for k in cols)
for n in range(1, 13):
    c.execute(f"insert into records ({', '.join(cols)}) select {sel} from records", {"n": n})
c.commit(); print(c.execute("select count(*) from records").fetchone())
PY
P=$(freeport); bg_cli v.log view r --port $P; waitport $P || broke "view not started: $(tail -2 v.log)"
python - $P <<'PY'
import httpx, sys, time, threading, re
b = f"http://127.0.0.1:{sys.argv[1]}"
r = httpx.get(b + "/", timeout=60); links = re.findall(r'href="(/[^"?#]*room[^"]*)"', r.text) or re.findall(r'href="(/[^"]+)"', r.text)
slow = {}
def room():
    t = time.time()
    try: httpx.get(b + (links[0] if links else "/room/x"), timeout=60)
    except Exception: pass
    slow["room"] = time.time() - t
th = threading.Thread(target=room); th.start(); time.sleep(0.05)
t = time.time(); r = httpx.get(b + "/?sort=question", timeout=60); el = time.time() - t
th.join()
print("HELD list %.1fs room %.1fs" % (el, slow["room"]) if el < 3 else "BROKE: list took %.1fs while a room request was pending during indexing" % el)
PY
