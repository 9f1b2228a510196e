# area 7: a signed-in judge's decision POST whose Origin is another loopback port is refused
import os, sys, re; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from weblib import *
d = tmp(); run = mkrun(f"{d}/run")
s = Server("serve", "--from", run, "--output", f"{d}/st", "--token", "orgtok123456789")
try:
    op, jar = browser()
    st, body, h = fetch(op, s.url + "/")
    csrf = re.search(r'name="csrf" value="([^"]+)"', body).group(1)
    st, body, h = fetch(op, s.url + "/signin", {"csrf": csrf, "name": "alice"}, headers={"Origin": s.url})
    form = dict(re.findall(r'name="([a-z_]+)" value="([^"]*)"', body))
    evil = f"http://127.0.0.1:{free_port()}"
    st2, body2, h2 = fetch(op, s.url + "/judge/decide", {"csrf": form.get("csrf", ""), "id": form.get("id", ""), "choice": "1", "confidence": "80"}, headers={"Origin": evil})
    st3, body3, h3 = fetch(op, s.url + "/judge/decide", {"csrf": form.get("csrf", ""), "id": form.get("id", ""), "choice": "1", "confidence": "80"}, headers={"Sec-Fetch-Site": "same-site"})
    n0 = q(f"{d}/st/results.sqlite", "select count(*) from records where kind='decision'")[0][0] if os.path.exists(f"{d}/st/results.sqlite") else 0
    st4, body4, h4 = fetch(op, s.url + "/judge/decide", {"csrf": form.get("csrf", ""), "id": form.get("id", ""), "choice": "1", "confidence": "80"}, headers={"Origin": s.url})
finally:
    s.close()
n = n0
n4 = q(f"{d}/st/results.sqlite", "select count(*) from records where kind='decision'")[0][0] if os.path.exists(f"{d}/st/results.sqlite") else 0
if n:
    broke(f"a cross-origin POST recorded {n} decision(s) (statuses {st2}, {st3})")
held(f"cross-origin decisions refused: {st2}, {st3}; same-origin control {st4} recorded {n4} (form fields {sorted(form)})")
