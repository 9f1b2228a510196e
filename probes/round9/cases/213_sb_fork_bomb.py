# area 2: a fork bomb is bounded (pids), the verdict is the program's (not transient), within its wall limit,
# and a program run right after works
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sblib import *
bomb = "import os, time\nfor i in range(10000):\n    try:\n        if os.fork() == 0:\n            time.sleep(30)\n    except OSError:\n        pass\nans = 1\n"
rs, wall = sandbox([bomb, "ans = 6 * 7"], timeout=3, workers=1)
if rs[0]["transient"] or rs[0]["status"] == "ok" and rs[0]["answer"] is None:
    broke(f"fork bomb verdict {rs[0]}")
if rs[1]["answer"] != 42.0:
    broke(f"next program broken after a fork bomb: {rs[1]}")
if wall > 25:
    broke(f"fork bomb took {wall:.0f}s with timeout=3")
held(f"bomb: {rs[0]['status']} {rs[0]['error'][:60]}; next ok; {wall:.1f}s")
