# area 4: report --stance-check with a spec holding api_key= (and a query credential): the key reaches neither
# report.json/report.md, nor the run folder's stance_check.jsonl cache, nor stderr; the server echoes it back
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
KEY = "Zq9Lm2Np4Rt6Vw8Xy1Kc"
def reply(h, body):
    if body is None: return h.send_json({"data": []})
    h.send_json(completion(f"Supports answer 1. (auth was Bearer {KEY})", body))
srv = FakeOpenAI(reply=reply)
d = tmp(); run = mkrun(f"{d}/run", protocols="debate")
spec = srv.spec(f",api_key={KEY}")
rc, out, err = ob("report", run, "--output", f"{d}/rep", "--no-figures", "--stance-check", spec, "--stance-calibration", run, timeout=120)
texts = {"stdout": out, "stderr": err, **all_text(f"{d}/rep"), **all_text(run)}
hits = find_leak([KEY], texts)
if hits:
    broke(f"key in {sorted({os.path.basename(h[0]) for h in hits})} (report rc={rc})")
if "Traceback" in err: broke(err.splitlines()[-1])
held(f"report rc={rc}; key nowhere ({len([r for r in srv.requests if r[0]=='POST'])} checker calls)")
