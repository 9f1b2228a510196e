# Area 4 (model servers): the server redirects every call to itself (302 loop): bounded requests, no hang
from probe import *
from servers import judge_run
s = Server(lambda req, w: (w.send_response(302), w.send_header("Location", req["path"]), w.send_header("Content-Length", "0"), w.end_headers()))
p, out, took, t = judge_run(s, "m22", timeout=100)
if len(s.requests) > 200 or p.returncode == 124:
    broke(f"{len(s.requests)} requests in a redirect loop ({took:.0f}s)")
why = no_traceback(p)
broke(why) if why else held(f"{len(s.requests)} requests, rc {p.returncode}: {last_line(err_of(p))[:100]}")
