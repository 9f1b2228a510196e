# Area 2 (sandbox): a program printing 5 MB, and ones forging a result with answer 1e999 or a 10,000-digit integer: bounded, never ok with a non-finite answer, never transient
from sandbox_probe import *
p1 = "print('x' * (5 << 20))\nans = 1"
p2 = "import os\nos.write(1, b'{\"status\": \"ok\", \"answer\": 1e999, \"error\": \"\", \"stdout\": \"\"}')\nos._exit(0)\n"
p3 = "import os\nos.write(1, b'{\"status\": \"ok\", \"answer\": ' + b'9' * 10000 + b', \"error\": \"\", \"stdout\": \"\"}')\nos._exit(0)\n"
d = run_sandboxed([p1, p2, p3], timeout=90)
rs = d["results"]
if rs[1]["status"] == "ok":
    broke(f"a forged answer 1e999 accepted: {rs[1]}")
if rs[2]["status"] == "ok" and str(rs[2]["answer"]).lower() in ("inf", "infinity"):
    broke(f"a 10,000-digit answer became {rs[2]['answer']}")
if any(r["transient"] for r in rs):
    broke(f"transient: {rs}")
held(f"{[(r['status'], r['error'][:30]) for r in rs]}")
