# area 4: endless response headers (a header flood) -- must end within the deadline
import os, sys, time; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from srvlib import *
def reply(h, body):
    h.wfile.write(b"HTTP/1.1 200 OK\r\n")
    try:
        for i in range(10**6):
            h.wfile.write(b"X-Junk-%d: %s\r\n" % (i, b"a" * 1000))
    except OSError:
        pass
server_case("header flood", reply, limit_s=40)
