# area 4: the server trickles a valid reply one byte every 0.5 s (total deadline must cut it)
import os, sys, time; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from srvlib import *
def reply(h, body):
    data = json.dumps(completion("Answer: 1" + " " * 200, body)).encode()
    h.send_response(200); h.send_header("Content-Type", "application/json"); h.send_header("Content-Length", str(len(data))); h.end_headers()
    for b in data:
        try:
            h.wfile.write(bytes([b])); h.wfile.flush(); time.sleep(0.5)
        except OSError:
            return
server_case("trickle 2 B/s", reply, limit_s=30)
