# area 7: the organiser's sign-in cookie must be bound to its server: the organiser link sets a cookie that
# the browser sends to EVERY port of 127.0.0.1 (cookies ignore ports); if its value is the study token itself,
# any other loopback listener the organiser's browser visits learns the token and opens /organiser
import os, sys, threading, http.server; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from weblib import *
d = tmp(); run = mkrun(f"{d}/run")
TOKEN = "orgSecretTok9Q7x2LmZ"
s = Server("serve", "--from", run, "--output", f"{d}/st", "--token", TOKEN)
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
    st, body, h = fetch(op, s.url + f"/organiser?token={TOKEN}")
    fetch(op, f"http://127.0.0.1:{other.server_address[1]}/")     # the organiser browses another local page
    stolen = [c for c in seen if TOKEN in c]
    replay = fetch(browser()[0], s.url + "/organiser", headers={"Authorization": f"Bearer {TOKEN}"})[0] if stolen else None
finally:
    s.close(); other.shutdown()
if stolen:
    broke(f"the organiser cookie holds the study token itself and reached another port's server ({stolen[0][:60]}...); replayed as Bearer it opens /organiser: {replay}")
held(f"organiser page {st}; other port saw cookies {seen}")
