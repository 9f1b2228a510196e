# area 4: userinfo credentials in base_url (http://user:pass@host) never stored or shown
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
PW = "Pw0rdQ7zX9kLm2"
srv = FakeOpenAI(text="Answer: 1")
d = tmp()
spec = f"openai:m,base_url=http://bob:{PW}@127.0.0.1:{srv.port}/v1,max_retries=0,timeout=5"
rc, out, err = ob("run", "--judge", spec, "--tasks", "arith", "--protocols", "qa_without_article", "--limit", 1,
                  "--answer-order", "random", "--output", f"{d}/run", "--quiet")
texts = {"stdout": out, "stderr": err, **all_text(f"{d}/run")}
ob("view", f"{d}/run", "--export", f"{d}/site"); texts.update(all_text(f"{d}/site"))
rc3, o3, e3 = ob("report", f"{d}/run", "--output", f"{d}/rep", "--no-figures"); texts.update(all_text(f"{d}/rep"))
hits = find_leak([PW], texts)
if hits:
    broke(f"userinfo password in {sorted({os.path.basename(h[0]) for h in hits})}")
held(f"userinfo password masked (run rc={rc}, report rc={rc3})")
