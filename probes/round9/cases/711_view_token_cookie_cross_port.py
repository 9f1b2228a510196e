# area 7: the view server's token cookie (view --token T) must be bound to its server: if it holds T itself, every
# other loopback listener the browser visits receives T and can open the viewer with it
import os, sys, threading, http.server; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from weblib import *
d = tmp(); run = mkrun(f"{d}/run")
TOKEN = "viewSecretTok4Q8x2LmZ"
s = Server("view", run, "--token", TOKEN)
seen = []
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        seen.append(self.headers.get("Cookie", ""))
        self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers(); self.wfile.write(b"hi")
other = http.server.HTTPServer(("127.0.0.1", 0), H)
threading.Thread(target=other.serve_forever, daemon=True).start()
try:
    op, jar = browser()
    st, body, h = fetch(op, s.url + f"/?token={TOKEN}")
    fetch(op, f"http://127.0.0.1:{other.server_address[1]}/")
    stolen = [c for c in seen if TOKEN in c]
    replay = fetch(browser()[0], s.url + "/", headers={"Authorization": f"Bearer {TOKEN}"})[0] if stolen else None
finally:
    s.close(); other.shutdown()
if stolen:
    broke(f"the view token cookie holds the token itself and reached another port ({stolen[0][:50]}...); replayed it opens the viewer: {replay}")
held(f"other port saw {seen}")
