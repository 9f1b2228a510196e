# area 4: the server answers 401 with the key in the error and in a WWW-Authenticate header; the failure summary,
# the store and the progress output hold no part of it
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
KEY = "sk-live-9Qz7Lm2Np4Rt6Vw8Xy"
def reply(h, body):
    if body is None: return h.send_json({"data": []})
    data = json.dumps({"error": {"message": f"Incorrect API key provided: {KEY[:8]}...{KEY[-4:]} / full {KEY.upper()}", "code": KEY}}).encode()
    h.send_response(401); h.send_header("WWW-Authenticate", f'Bearer realm="{KEY}"'); h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(data))); h.end_headers(); h.wfile.write(data)
srv = FakeOpenAI(reply=reply)
d = tmp()
rc, out, err = ob("run", "--judge", srv.spec(), "--tasks", "arith", "--protocols", "qa_without_article", "--limit", 1, "--output", f"{d}/run", OPENAI_API_KEY=KEY)
texts = {"stdout": out, "stderr": err, **all_text(f"{d}/run")}
hits = find_leak([KEY, KEY[8:20]], texts)
if hits:
    broke(f"key (or a 12-char run of it) in {sorted({os.path.basename(h[0]) for h in hits})}")
held(f"rc={rc}: {err.strip().splitlines()[-1][:150] if err.strip() else ''}")
