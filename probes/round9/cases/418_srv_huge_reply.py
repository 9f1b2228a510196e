# area 4: a 200 MB streamed chunked body (no Content-Length): reply size must be bounded, memory too
import os, sys, time; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from srvlib import *
def reply(h, body):
    h.send_response(200); h.send_header("Content-Type", "application/json"); h.send_header("Transfer-Encoding", "chunked"); h.end_headers()
    head = b'{"id":"x","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"'
    try:
        for chunk in [head] + [b"A" * (1 << 20)] * 200:
            h.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        h.wfile.write(b"0\r\n\r\n")
    except OSError:
        pass
def check(rc, out, err, d, wall):
    p = f"{d}/run/results.sqlite"
    if os.path.exists(p) and os.path.getsize(p) > 50 << 20:
        broke(f"huge reply stored: results.sqlite is {os.path.getsize(p) >> 20} MB")
server_case("200 MB chunked reply", reply, limit_s=40, check=check)
