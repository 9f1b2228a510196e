# Area 2 (sandbox): a program connects to a server listening on the host's loopback: refused (no network)
from sandbox_probe import *
srv = Server(ok_handler)
prog = f"""
import socket
try:
    socket.create_connection(("127.0.0.1", {srv.port}), 2).sendall(b"GET / HTTP/1.0\\r\\n\\r\\n"); ans = "connected"
except OSError as e:
    ans = "refused " + str(e)[:40]
"""
r = run_sandboxed([prog], timeout=60)["results"][0]
if "connected" == r["answer"] or srv.requests: broke("the sandbox reached a host loopback server")
held(f"{r['answer'] or r['error'][:60]}")
