# Area 4 (model servers): a server trickling its body one byte a second against timeout=2 (max_retries=0): the call ends within the timeout (a total deadline)
import time
from probe import *
from servers import judge_run
def h(req, w):
    body = json.dumps(chat_reply()).encode()
    w.send_response(200); w.send_header("Content-Type", "application/json"); w.send_header("Content-Length", str(len(body))); w.end_headers()
    for i in range(len(body)):
        w.wfile.write(body[i:i+1]); w.wfile.flush(); time.sleep(1.0)
        if i > 40: return
s = Server(h)
b = Server(ok_handler); _, _, base, _ = judge_run(b, "m01b", opts={"timeout": 2})
p, out, took, t = judge_run(s, "m01", opts={"timeout": 2}, timeout=100)
if p.returncode == 124 or took > base + 20:
    broke(f"a trickling server held the run {took:.0f}s under timeout=2 (a normal run: {base:.0f}s)")
why = no_traceback(p)
broke(why) if why else held(f"normal run {base:.1f}s; ended in {took:.1f}s (rc {p.returncode}): {last_line(err_of(p))[:100]}")
