# Area 4 (model servers): the server redirects (307) the call to a server on another port: the API key is not sent there
from probe import *
from servers import judge_run, KEY
other = Server(lambda req, w: send_json(w, chat_reply()))
first = Server(lambda req, w: (w.send_response(307), w.send_header("Location", f"http://127.0.0.1:{other.port}{req['path']}"),
                               w.send_header("Content-Length", "0"), w.end_headers()))
p, out, took, t = judge_run(first, "m21")
got = [r for r in other.requests if KEY in json.dumps(r["headers"])]
if got:
    broke(f"the API key was sent to the redirect target on port {other.port} ({len(got)} request(s))")
why = no_traceback(p)
broke(why) if why else held(f"{len(other.requests)} request(s) at the other port, none with the key; rc {p.returncode}")
