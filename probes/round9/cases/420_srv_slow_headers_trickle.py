# area 4: status line and headers trickled one byte per 0.3 s, forever
import os, sys, time; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from srvlib import *
def reply(h, body):
    try:
        for b in b"HTTP/1.1 200 OK\r\nX-A: " + b"b" * 10000:
            h.wfile.write(bytes([b])); h.wfile.flush(); time.sleep(0.3)
    except OSError:
        pass
server_case("header trickle", reply, limit_s=30)
