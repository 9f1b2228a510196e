# area 4: a credential in base_url's query (?code=SECRET) never reaches results/config/export/view/stderr,
# even when the server echoes the full URL it was called on in its reply
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
SECRET = "QcodeZ8k2Lm4Np6Rt"
def reply(h, body):
    if body is None:
        return h.send_json({"data": []})
    h.send_json(completion(f"you called {h.path} Answer: 1", body))
srv = FakeOpenAI(reply=reply)
d = tmp()
spec = f"openai:m,base_url=http://127.0.0.1:{srv.port}/v1?code={SECRET},max_retries=0,timeout=5"
rc, out, err = ob("run", "--judge", spec, "--tasks", "arith", "--protocols", "qa_without_article", "--limit", 1,
                  "--answer-order", "random", "--output", f"{d}/run", "--quiet")
texts = {"stdout": out, "stderr": err, **all_text(f"{d}/run")}
rc2, o2, e2 = ob("export", f"{d}/run"); texts["export"] = o2 + e2
ob("view", f"{d}/run", "--export", f"{d}/site"); texts.update(all_text(f"{d}/site"))
reached = [r for r in srv.requests if r[0] == "POST"]
if not reached:
    broke(f"setup: no request reached the server rc={rc} {err[-300:]}")
hits = find_leak([SECRET], texts)
if hits:
    broke(f"query credential stored/shown in {sorted({os.path.basename(h[0]) for h in hits})} (server path {reached[0][1]})")
held(f"query credential masked everywhere (server saw {reached[0][1]})")
