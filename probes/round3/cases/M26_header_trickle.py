# Area 4 (model servers): a server that trickles its status line and headers one byte a second (timeout=2): ends within the timeout
import time
from probe import *
from servers import judge_run
def h(req, w):
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Pad: " + b"a" * 200
    for i in range(len(head)):
        w.wfile.write(head[i:i+1]); w.wfile.flush(); time.sleep(1)
        if i > 60: return
s = Server(h)
b = Server(ok_handler); _, _, base, _ = judge_run(b, "m26b", opts={"timeout": 2})
p, out, took, t = judge_run(s, "m26", opts={"timeout": 2}, timeout=100)
if p.returncode == 124 or took > base + 20:
    broke(f"header trickle held the run {took:.0f}s under timeout=2 (a normal run: {base:.0f}s)")
why = no_traceback(p)
broke(why) if why else held(f"normal run {base:.1f}s; ended in {took:.1f}s, rc {p.returncode}")
