# area 7: requests with a foreign Host header (DNS rebinding) are refused by view and serve
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from weblib import *
d = tmp(); run = mkrun(f"{d}/run")
v = Server("view", run); s = Server("serve", "--from", run, "--output", f"{d}/st", "--token", "orgtok123456789")
try:
    op, jar = browser()
    codes = [fetch(op, x.url + "/", headers={"Host": "evil.example:80"})[0] for x in (v, s)]
finally:
    v.close(); s.close()
if any(c == 200 for c in codes):
    broke(f"foreign Host served: {codes}")
held(f"foreign Host refused: {codes}")
