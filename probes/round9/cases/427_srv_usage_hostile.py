# area 4: hostile `usage` numbers from the server (1e30, negative, NaN literal, a string): the run stores no
# absurd token counts (or refuses the reply), and run/report/--max-total-tokens stay sane (no traceback)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
usages = [b'{"prompt_tokens": 1e30, "completion_tokens": 3}', b'{"prompt_tokens": -500, "completion_tokens": -7}',
          b'{"prompt_tokens": NaN, "completion_tokens": Infinity}', b'{"prompt_tokens": "many", "completion_tokens": [1]}']
i = [0]
def reply(h, body):
    if body is None: return h.send_json({"data": []})
    u = usages[i[0] % len(usages)]; i[0] += 1
    c = json.dumps(completion("Answer: 1", body)).encode().replace(b'{"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}', u)
    h.send_json(None, raw=c)
srv = FakeOpenAI(reply=reply)
d = tmp()
rc, out, err = ob("run", "--judge", srv.spec(), "--tasks", "arith", "--protocols", "qa_without_article", "--limit", 2,
                  "--output", f"{d}/run", "--quiet", "--max-total-tokens", "100000")
if "Traceback" in err: broke(f"run traceback: {err.strip().splitlines()[-1]}")
rows = q(f"{d}/run/results.sqlite", "select prompt_tokens, completion_tokens from calls") if os.path.exists(f"{d}/run/results.sqlite") else []
bad = [r for r in rows if any(isinstance(x, (int, float)) and (x < 0 or x > 1e9 or x != x) for x in r) or any(isinstance(x, str) for x in r)]
rc2, o2, e2 = ob("report", f"{d}/run", "--output", f"{d}/rep", "--no-figures")
if "Traceback" in e2: broke(f"report traceback: {e2.strip().splitlines()[-1]}")
if bad:
    broke(f"stored absurd token counts {bad[:3]} (run rc={rc}, report rc={rc2})")
held(f"run rc={rc} ({err.strip().splitlines()[-1][:120] if err.strip() else ''}); stored {rows}; report rc={rc2}")
