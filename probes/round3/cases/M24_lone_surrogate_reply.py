# Area 4 (model servers): a reply whose content holds a lone surrogate escape (\ud800) and a NUL: stored, exported and viewed without a traceback
from probe import *
from servers import judge_run
raw = b'{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Answer: 1 \\ud800\\udfff\\ud800 \\u0000 end"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}'
s = Server(lambda req, w: send_json(w, raw))
p, out, took, t = judge_run(s, "m24")
why = no_traceback(p)
if why: broke("run: " + why)
for args in (["export", out], ["view", out, "--export", t / "site"], ["report", out, "--output", t / "rep", "--no-figures"]):
    q = ob(args); why = no_traceback(q)
    if why: broke(f"{args[0]}: {why}")
held(f"rc {p.returncode}; export/view/report clean")
