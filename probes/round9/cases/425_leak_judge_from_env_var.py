# area 4: judge --from with api_key_env=P11_KEYVAR (a variable not named like a credential): the key, echoed
# verbatim by the server, is masked in the new run, its export and stderr
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
KEY = "Wx7Kp2Qz9Lm4Np6Rt8Vb"
def reply(h, body):
    if body is None: return h.send_json({"data": []})
    h.send_json(completion(f"Answer: 1 -- your key {KEY}", body))
srv = FakeOpenAI(reply=reply)
d = tmp(); run = mkrun(f"{d}/run", protocols="qa_without_article,debate")
rc, out, err = ob("judge", "--from", run, "--judge", srv.spec(",api_key_env=P11_KEYVAR"), "--output", f"{d}/rej", "--quiet", P11_KEYVAR=KEY)
texts = {"stdout": out, "stderr": err, **all_text(f"{d}/rej")}
rc2, o2, e2 = ob("export", f"{d}/rej", P11_KEYVAR=KEY); texts["export"] = o2 + e2
hits = find_leak([KEY], texts)
if not any(r[0] == "POST" for r in srv.requests): broke(f"setup: no call (rc={rc}): {err[-200:]}")
if hits:
    broke(f"key from api_key_env stored in {sorted({os.path.basename(h[0]) for h in hits})}")
held(f"judge rc={rc}: key masked")
