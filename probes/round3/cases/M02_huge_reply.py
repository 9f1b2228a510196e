# Area 4 (model servers): a 100 MB reply to a 24-token verdict: refused as malformed, nothing of it stored, memory bounded
import time, resource
from probe import *
from servers import judge_run
N = 100 * 1024 * 1024
def h(req, w):
    head = b'{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Answer: 1'
    tail = b'"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}'
    w.send_response(200); w.send_header("Content-Type", "application/json"); w.send_header("Content-Length", str(len(head) + N + len(tail))); w.end_headers()
    w.wfile.write(head)
    chunk = b"x" * (1 << 20)
    for _ in range(N >> 20):
        w.wfile.write(chunk)
    w.wfile.write(tail); w.wfile.flush()
s = Server(h)
p, out, took, t = judge_run(s, "m02", opts={"timeout": 60}, timeout=150)
size = sum(f.stat().st_size for f in out.glob("results.sqlite*")) if out.exists() else 0
if size > 20 * 1024 * 1024:
    broke(f"stored {size/1e6:.0f} MB for a 24-token verdict")
why = no_traceback(p)
broke(why) if why else held(f"store {size/1e6:.1f} MB, rc {p.returncode}: {last_line(err_of(p))[:110]}")
