# area 7: view --token: no token -> 403 on every page (rooms too); wrong token -> 403; the link sets a cookie
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from weblib import *
d = tmp(); run = mkrun(f"{d}/run")
s = Server("view", run, "--token", "viewtokenQ7x9Lm2Zk")
try:
    op, jar = browser()
    codes = [fetch(op, s.url + p)[0] for p in ("/", "/rooms/0000000000000000", "/static/view.css", "/?token=wrong")]
    ok = fetch(op, s.url + "/?token=viewtokenQ7x9Lm2Zk")[0]
    after = fetch(op, s.url + "/")[0]
finally:
    s.close()
if any(c == 200 for c in codes):
    broke(f"pages served without the token: {codes}")
if ok != 200 or after != 200:
    broke(f"the token link does not work: {ok}, then {after}")
held(f"without token {codes}; with link {ok}, cookie then {after}")
