# area 2: no network: a host TCP server on 127.0.0.1 is unreachable from a program
import os, sys, socket, threading; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sblib import *
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(5); port = srv.getsockname()[1]
got = []
threading.Thread(target=lambda: got.append(srv.accept()), daemon=True).start()
prog = f'''
import socket
try:
    s = socket.create_connection(("127.0.0.1", {port}), timeout=2); ans = "connected"
except OSError as e:
    ans = "refused " + str(e.errno)
'''
(r,), wall = sandbox([prog], timeout=10)
if r["answer"] == "connected" or got:
    broke("program reached a host server")
held(f"{r['status']}: {r['answer']}")
