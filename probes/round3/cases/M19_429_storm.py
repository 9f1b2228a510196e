# Area 4 (model servers): every request answered 429 with Retry-After 2 (max_retries=3): requests bounded (<= 4 per call), the run ends in bounded time with a one-line job failure
from probe import *
from servers import judge_run
s = Server(lambda req, w: send_json(w, {"error": {"message": "slow down"}}, status=429, headers={"Retry-After": "2"}))
p, out, took, t = judge_run(s, "m19", opts={"max_retries": 3}, timeout=150)
n = len(s.requests)
if n > 4 * 2 + 2:
    broke(f"{n} requests for 2 calls with max_retries=3")
if took > 90:
    broke(f"took {took:.0f}s")
why = no_traceback(p)
broke(why) if why else held(f"{n} requests, {took:.0f}s, rc {p.returncode}: {last_line(err_of(p))[:90]}")
