# Area 4 (model servers): the server drops the connection mid-body on every request (max_retries=2): bounded re-sends, one-line failure
from probe import *
from servers import judge_run
def h(req, w):
    body = json.dumps(chat_reply()).encode()
    w.send_response(200); w.send_header("Content-Type", "application/json"); w.send_header("Content-Length", str(len(body))); w.end_headers()
    w.wfile.write(body[:20]); w.wfile.flush(); w.close_connection = True
    import socket; w.connection.shutdown(socket.SHUT_RDWR)
s = Server(h)
p, out, took, t = judge_run(s, "m30", opts={"max_retries": 2})
if len(s.requests) > 8:
    broke(f"{len(s.requests)} requests for 2 calls with max_retries=2")
why = no_traceback(p)
broke(why) if why else held(f"{len(s.requests)} requests, {took:.0f}s, rc {p.returncode}")
