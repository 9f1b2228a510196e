# Area 4 (model servers): a 200 whose body is HTML, then one cut off mid-JSON (max_retries=2): bounded re-sends, one-line job failure
from probe import *
from servers import judge_run
import itertools
c = itertools.count()
def h(req, w):
    if next(c) % 2:
        send_json(w, b"<html><body>proxy error</body></html>")
    else:
        send_json(w, b'{"choices":[{"message":{"content":"Answer')
s = Server(h)
p, out, took, t = judge_run(s, "m27", opts={"max_retries": 2})
if len(s.requests) > 3 * 2 + 2:
    broke(f"{len(s.requests)} requests for 2 calls with max_retries=2")
why = no_traceback(p)
broke(why) if why else held(f"{len(s.requests)} requests, rc {p.returncode}: {last_line(err_of(p))[:100]}")
