# area 7: a sign-in CSRF cookie minted by ANOTHER serve server (another port; cookies are shared across
# ports) cannot sign anyone in on this one
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from weblib import *
d = tmp(); run = mkrun(f"{d}/run")
a = Server("serve", "--from", run, "--output", f"{d}/sa", "--token", "orgA123456789xyz")
b = Server("serve", "--from", run, "--output", f"{d}/sb", "--token", "orgB123456789xyz")
try:
    op, jar = browser(follow=False)
    st, body, h = fetch(op, a.url + "/")  # A's sign-in page sets its CSRF cookie for 127.0.0.1 (any port)
    csrf = [c.value for c in jar if c.name == "ob_signin"]
    st2, body2, h2 = fetch(op, b.url + "/signin", {"csrf": csrf[0] if csrf else "", "name": "mallory"},
                           headers={"Origin": b.url, "Cookie": f"ob_signin={csrf[0] if csrf else ''}"})
finally:
    a.close(); b.close()
if not csrf:
    broke(f"setup: no sign-in cookie from A (status {st})")
if st2 in (302, 303) and "judge" in h2.get("location", h2.get("Location", "")):
    broke(f"B accepted a sign-in with A's CSRF cookie: {st2} -> {h2.get('location')}")
held(f"B refused A's cookie: {st2} {body2[:80]!r}")
