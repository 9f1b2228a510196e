# Area 7 (web): `serve --from` a run whose turns, question and answers hold <script>/onerror payloads: the judge's page escapes them and sends a CSP
import re
from web import *
t = tmpdir("w09"); run = xss_run("w09")
p, port = start_serve(["--from", run, "--output", t / "study"])
try:
    st, h, body, ck = get(port, "/")
    token = re.search(r'name="csrf" value="([^"]+)"', body).group(1)
    cname = ck[0].split("=", 1)[0]
    st, h, body, ck2 = get(port, "/signin", method="POST", body=f"csrf={token}&name=alice",
                           headers={"Cookie": f"{cname}={token}", "Content-Type": "application/x-www-form-urlencoded"})
    sess = "; ".join(c.split(";", 1)[0] for c in ck2)
    st, h, page, _ = get(port, "/judge", headers={"Cookie": sess})
    if st != 200: error(f"/judge -> {st}")
    hits = [b for b in BAD if b in page]
    if hits: broke(f"unescaped {hits[0]!r} on the judge page")
    if "script-src" not in (h.get("content-security-policy") or h.get("Content-Security-Policy") or "") and "default-src" not in str(h):
        broke("no Content-Security-Policy on the judge page")
    held("judge page escapes the payloads, CSP sent")
finally:
    kill_tree(p)
