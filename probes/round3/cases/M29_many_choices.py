# Area 4 (model servers): a reply with 20,000 choices to an n=1 request (about 1.6 MB): bounded, not stored whole
from probe import *
from servers import judge_run
d = chat_reply("Answer: 1", n=20000)
s = Server(lambda req, w: send_json(w, d))
p, out, took, t = judge_run(s, "m29")
size = sum(f.stat().st_size for f in out.glob("results.sqlite*")) if out.exists() else 0
why = no_traceback(p)
if why: broke(why)
if out.exists() and (out / "results.sqlite").exists():
    big = db(out).execute("SELECT max(length(response)) FROM calls").fetchone()[0] or 0
    if big > 300_000: broke(f"stored a {big} byte response for n=1")
held(f"rc {p.returncode}, store {size/1e6:.2f} MB")
