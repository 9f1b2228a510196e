# area 5: the live `view` server over hostile stores (a decision's data a list in one run, a turn's text an
# object and a question's data not JSON in another): pages answer (error page or skip), the server prints no traceback
import os, sys, re, time; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from weblib import *
d = tmp()
a = mkrun(f"{d}/runs/a"); b = mkrun(f"{d}/runs/b"); c = mkrun(f"{d}/runs/c")
q(f"{a}/results.sqlite", "update records set data='[1]' where kind='decision' and id=(select min(id) from records where kind='decision')")
q(f"{b}/results.sqlite", "update records set data=json_set(data,'$.text',json('{\"x\":1}'),'$.shown',json('[1]')) where kind='turn'")
q(f"{c}/results.sqlite", "update questions set data='{bad'")
s = Server("view", f"{d}/runs")
try:
    op, jar = browser()
    time.sleep(3)
    st, body, h = fetch(op, s.url + "/", timeout=30)
    page = re.sub(r"<[^>]+>", " ", body)
    rooms = sorted(set(re.findall(r'href="(/rooms/[0-9a-f]{16}[^"]*)"', body)))[:40]
    codes = [fetch(op, s.url + r, timeout=30)[0] for r in rooms]
    runs = [fetch(op, s.url + f"/runs/{i}", timeout=30)[0] for i in range(1, 4)]
    time.sleep(1)
finally:
    s.close()
log = "\n".join(s.out())
if "Traceback" in log:
    broke(f"view server printed a traceback: {[l for l in log.splitlines() if l.strip()][-1][:200]}")
if st >= 500 and not re.search(r"damaged|cannot", page):
    broke(f"index {st} without an explanation: {' '.join(page.split())[:200]}")
if any(x >= 500 for x in codes):
    broke(f"5xx on room pages: {codes}")
held(f"index {st} ({' '.join(page.split())[-160:] if st >= 500 else 'ok'}); {len(rooms)} rooms {sorted(set(codes))}; no traceback")
