# Area 4 (model servers): a server answering 401 (then 500) with the API key and query credential in its error message: the one-line error and the run folder hold neither
from probe import *
from servers import judge_run, leaks, KEY, QSECRET
def h(req, w):
    auth = req["headers"].get("Authorization") or ""
    send_json(w, {"error": {"message": f"bad key {auth} for {req['path']}", "type": "invalid_request_error"}}, status=401)
s = Server(h)
p, out, took, t = judge_run(s, "m07", qsecret=QSECRET)
found = [x for x in (KEY, QSECRET) if x.lower() in (err_of(p) + out_of(p)).lower()]
found += leaks(out, (KEY, QSECRET)) if out.exists() else []
if found:
    broke(f"credential in the error output/run: {found[:3]}")
why = one_line_error(p)
broke(why) if why else held("one line, no credential: " + last_line(err_of(p))[:120])
