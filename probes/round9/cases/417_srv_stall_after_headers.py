# area 4: headers sent, then the body never comes (connection held open)
import os, sys, time; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from srvlib import *
def reply(h, body):
    h.send_response(200); h.send_header("Content-Type", "application/json"); h.send_header("Content-Length", "5000"); h.end_headers()
    h.wfile.write(b'{"id":'); h.wfile.flush(); time.sleep(60)
server_case("stall after headers", reply, limit_s=30)
