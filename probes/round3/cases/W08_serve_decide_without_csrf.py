# Area 7 (web): a signed-in judge's browser posts /judge/decide and /signout from another origin without the form's CSRF token: refused, nothing recorded
import re
from web import *
t = tmpdir("w08"); run = copy_run("w08")
p, port = start_serve(["--from", run, "--output", t / "study"])
try:
    st, h, body, ck = get(port, "/")
    token = re.search(r'name="csrf" value="([^"]+)"', body).group(1)
    cname = ck[0].split("=", 1)[0]
    st, h, body, ck2 = get(port, "/signin", method="POST", body=f"csrf={token}&name=alice",
                           headers={"Cookie": f"{cname}={token}", "Content-Type": "application/x-www-form-urlencoded"})
    sess = "; ".join(c.split(";", 1)[0] for c in ck2 if "=" in c.split(";", 1)[0] and c.split(";", 1)[0].split("=", 1)[1])
    st, h, page, _ = get(port, "/judge", headers={"Cookie": sess})
    aid = re.search(r'name="(?:assignment|item|aid)[^"]*" value="([^"]+)"', page)
    form = f"answer=1&choice=1&{'assignment='+aid.group(1) if aid else ''}"
    st1 = get(port, "/judge/decide", method="POST", body=form, headers={"Cookie": sess, "Content-Type": "application/x-www-form-urlencoded"})[0]
    st2 = get(port, "/signout", method="POST", body="", headers={"Cookie": sess, "Content-Type": "application/x-www-form-urlencoded"})[0]
    st3 = get(port, "/judge", headers={"Cookie": sess})[0]
    if st1 in (200, 302, 303) and st1 != 403 and "decided" in get(port, "/judge", headers={"Cookie": sess})[2].lower():
        broke(f"decide without CSRF accepted (HTTP {st1})")
    if st3 != 200:
        broke(f"signout without CSRF ended the session (HTTP {st2}, then /judge {st3})")
    held(f"decide -> {st1}, signout -> {st2}, session kept ({st3})")
finally:
    kill_tree(p)
