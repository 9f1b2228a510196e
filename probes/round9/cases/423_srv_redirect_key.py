# area 4: the server answers 307 to another port; the API key must not be sent on / leak through the redirect
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
KEY = "sk-redirXq9Lm2Np4Rt6Vw8"
thief = FakeOpenAI(text="Answer: 1")
def reply(h, body):
    h.send_response(307); h.send_header("Location", f"http://127.0.0.1:{thief.port}/v1/chat/completions"); h.send_header("Content-Length", "0"); h.end_headers()
srv = FakeOpenAI(reply=reply)
d = tmp()
rc, out, err = ob("run", "--judge", srv.spec(f",api_key={KEY}"), "--tasks", "arith", "--protocols", "qa_without_article", "--limit", 1,
                  "--answer-order", "random", "--output", f"{d}/run", "--quiet")
stolen = [r for r in thief.requests if KEY in json.dumps(r[2])]
if stolen:
    broke(f"the key followed a redirect to another origin (port {thief.port}): {stolen[0][1]}")
if "Traceback" in err:
    broke(f"traceback: {err.splitlines()[-1]}")
held(f"redirect not followed with the key (rc={rc}, thief got {len(thief.requests)} requests)")
