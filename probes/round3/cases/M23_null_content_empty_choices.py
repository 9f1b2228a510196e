# Area 4 (model servers): replies with null content, then empty choices, then choices a string: job failures in one line, no traceback
from probe import *
from servers import judge_run
import itertools
cnt = itertools.count()
def h(req, w):
    i = next(cnt) % 3
    d = chat_reply()
    if i == 0: d["choices"][0]["message"]["content"] = None
    elif i == 1: d["choices"] = []
    else: d["choices"] = "Answer: 1"
    send_json(w, d)
s = Server(h)
p, out, took, t = judge_run(s, "m23", opts={"max_retries": 2})
why = no_traceback(p)
broke(why) if why else held(f"rc {p.returncode}: {last_line(err_of(p))[:120]}")
