# area 7: a copied session cookie stops working after sign-out; a session cookie of another study's server is unknown here
import os, sys, re; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from weblib import *
d = tmp(); run = mkrun(f"{d}/run")
a = Server("serve", "--from", run, "--output", f"{d}/sa", "--token", "orgA123456789xyz")
b = Server("serve", "--from", run, "--output", f"{d}/sb", "--token", "orgB123456789xyz")
try:
    op, jar = browser()
    st, body, h = fetch(op, a.url + "/")
    csrf = re.search(r'name="csrf" value="([^"]+)"', body).group(1)
    st, body, h = fetch(op, a.url + "/signin", {"csrf": csrf, "name": "alice"}, headers={"Origin": a.url})
    sess = [c.value for c in jar if c.name == "ob_session"][0]
    op2, _ = browser(follow=False)
    on_b = fetch(op2, b.url + "/judge", headers={"Cookie": f"ob_session={sess}"})[0]
    form = dict(re.findall(r'name="([a-z_]+)" value="([^"]*)"', body))
    fetch(op, a.url + "/signout", {"csrf": form.get("csrf", "")}, headers={"Origin": a.url})
    after = fetch(op2, a.url + "/judge", headers={"Cookie": f"ob_session={sess}"})[0]
finally:
    a.close(); b.close()
if on_b == 200:
    broke("server A's session cookie opened the judge page on server B")
if after == 200:
    broke("the session cookie still works after sign-out")
held(f"on B: {on_b}; after sign-out on A: {after}")
