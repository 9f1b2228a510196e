# Area 4 (model servers): every request answered 503 with Retry-After 999999 (max_retries=1): a Retry-After is capped, the run ends in bounded time
from probe import *
from servers import judge_run
s = Server(lambda req, w: send_json(w, {"error": {"message": "down"}}, status=503, headers={"Retry-After": "999999"}))
p, out, took, t = judge_run(s, "m20", opts={"max_retries": 1}, timeout=150)
if p.returncode == 124 or took > 100:
    broke(f"a Retry-After of 999999 s held the run {took:.0f}s")
why = no_traceback(p)
broke(why) if why else held(f"{len(s.requests)} requests, {took:.0f}s, rc {p.returncode}")
