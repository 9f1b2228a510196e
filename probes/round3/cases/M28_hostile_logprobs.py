# Area 4 (model servers): judge_mode=probs against a server whose logprobs are strings, 1e999 and NaN literals: no traceback, no NaN stored
from probe import *
from servers import judge_run
raw = (b'{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"1"},'
       b'"logprobs":{"content":[{"token":"1","logprob":NaN,"top_logprobs":[{"token":"1","logprob":"x"},{"token":"2","logprob":1e999},'
       b'{"token":"1","logprob":-Infinity}]}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}')
s = Server(lambda req, w: send_json(w, raw))
p, out, took, t = judge_run(s, "m28", opts={"logprobs": "true", "max_retries": 1}, extra_args=["--judge-mode", "probs"])
why = no_traceback(p)
if why: broke(why)
if out.exists() and (out / "results.sqlite").exists():
    bad = db(out).execute("SELECT count(*) FROM records WHERE data LIKE '%NaN%' OR data LIKE '%Infinity%'").fetchone()[0]
    if bad: broke(f"{bad} record(s) hold NaN/Infinity")
held(f"rc {p.returncode}: {last_line(err_of(p))[:120]}")
