# Area 7 (web): login CSRF from another loopback port: the attacker's server fetches a genuine sign-in token from `serve`, its page plants it as the cookie (cookies ignore ports) and posts the form cross-origin (Origin: http://127.0.0.1:OTHER, Sec-Fetch-Site: same-site): must be refused
import re
from web import *
t = tmpdir("w07"); run = copy_run("w07")
p, port = start_serve(["--from", run, "--output", t / "study"])
try:
    st, h, body, ck = get(port, "/")
    m = re.search(r'name="csrf" value="([^"]+)"', body)
    if not m or not ck: error(f"no sign-in token found (HTTP {st})")
    token = m.group(1)
    cname = ck[0].split("=", 1)[0]
    other = free_port()
    st, h, body, ck2 = get(port, "/signin", method="POST", body=f"csrf={token}&name=mallory",
                           headers={"Cookie": f"{cname}={token}", "Content-Type": "application/x-www-form-urlencoded",
                                    "Origin": f"http://127.0.0.1:{other}", "Referer": f"http://127.0.0.1:{other}/evil.html",
                                    "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "navigate"})
    if st in (302, 303) and any("session" in c.lower() or "judge" in c.lower() for c in ck2):
        broke(f"a cross-origin sign-in (Origin port {other}) with a relayed genuine token signed the browser in as mallory (HTTP {st})")
    held(f"cross-origin sign-in refused (HTTP {st})")
finally:
    kill_tree(p)
