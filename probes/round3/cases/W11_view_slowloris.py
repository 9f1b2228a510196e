# Area 7 (web): 50 connections to `view` that send half a request line and stall do not stop the list answering (< 3 s)
import socket
from web import *
run = copy_run("w11")
p, port = start_view([run])
socks = []
try:
    time.sleep(1)
    for _ in range(50):
        s = socket.create_connection(("127.0.0.1", port), 5); s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: "); socks.append(s)
    t0 = time.time(); st = get(port, "/", timeout=30)[0]; took = time.time() - t0
    if took > 3: broke(f"the list took {took:.1f}s beside 50 stalled connections")
    held(f"list in {took:.2f}s (HTTP {st}) beside 50 stalled connections")
finally:
    for s in socks: s.close()
    kill_tree(p)
