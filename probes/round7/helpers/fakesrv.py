"""Hostile fake OpenAI-compatible server: python fakesrv.py MODE [arg]; prints its port."""
import base64, gzip, html, json, socket, sys, time, urllib.parse, zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
ARG = sys.argv[2] if len(sys.argv) > 2 else ""
COUNT = {"n": 0}


def completion(text, n=1):
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": i, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"} for i in range(n)],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        sys.stderr.write((a[0] % a[1:]) + "\n")

    def send(self, code, body, ctype="application/json", extra=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.send(404, {"error": {"message": "no"}})

    def do_POST(self):
        COUNT["n"] += 1
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        try:
            req = json.loads(raw)
        except Exception:
            req = {}
        k = req.get("n", 1) or 1
        echo = "Authorization: %s\nPath: %s\nBody: %s" % (self.headers.get("Authorization"), self.path, raw.decode("utf-8", "replace")[:2000])
        auth = self.headers.get("Authorization") or ""
        key = auth.split(" ", 1)[-1]
        q = urllib.parse.urlsplit(self.path).query
        qv = " ".join(v for _, v in urllib.parse.parse_qsl(q))
        secret = key + " " + qv
        m = MODE
        if m == "ok":
            return self.send(200, completion("Answer: 1", k))
        if m == "echo":
            return self.send(200, completion("Answer: 1\n" + echo, k))
        if m == "echo_enc":  # ARG names the encoding
            enc = {"b64": lambda s: base64.b64encode(s.encode()).decode(),
                   "b64url": lambda s: base64.urlsafe_b64encode(s.encode()).decode(),
                   "b64mime": lambda s: base64.encodebytes(s.encode()).decode(),
                   "html": lambda s: "".join("&#%d;" % ord(c) for c in s),
                   "html0": lambda s: "".join("&#%05d;" % ord(c) for c in s),
                   "htmlX": lambda s: "".join("&#X%X;" % ord(c) for c in s),
                   "url": lambda s: urllib.parse.quote(s, safe=""),
                   "urlall": lambda s: "".join("%%%02X" % b for b in s.encode()),
                   "url2": lambda s: urllib.parse.quote(urllib.parse.quote(s, safe=""), safe=""),
                   "hex": lambda s: s.encode().hex().upper(),
                   "hexsp": lambda s: " ".join("%02x" % b for b in s.encode()),
                   "hexcolon": lambda s: ":".join("%02x" % b for b in s.encode()),
                   "ju": lambda s: "".join("\\u%04X" % ord(c) for c in s),
                   "spaced": lambda s: " ".join(s),
                   "zwsp": lambda s: "\u200b".join(s),
                   "dash": lambda s: "-".join(s),
                   "rev": lambda s: s[::-1],
                   "upper": lambda s: s.upper(),
                   "b32": lambda s: base64.b32encode(s.encode()).decode(),
                   "utf16b64": lambda s: base64.b64encode(s.encode("utf-16-le")).decode(),
                   "jsonstr": lambda s: json.dumps(json.dumps(s)),
                   "fullwidth": lambda s: "".join(chr(ord(c) + 0xFEE0) if 0x21 <= ord(c) <= 0x7E else c for c in s),
                   "newlines": lambda s: "\n".join(s[i:i + 3] for i in range(0, len(s), 3)),
                   "plain": lambda s: s}[ARG]
            return self.send(200, completion("Answer: 1\nechoed: " + enc(secret), k))
        if m == "echo_err":  # ARG = status code
            return self.send(int(ARG or 400), {"error": {"message": "bad key " + echo}})
        if m == "echo_header":  # secret only in a header of a 500
            return self.send(500, "oops", "text/plain", [("X-Echo", key)])
        if m == "echo_html":  # 502 html page with the key
            return self.send(502, "<html><body>bad gateway for " + html.escape(echo) + "</body></html>", "text/html")
        if m == "trickle":
            body = json.dumps(completion("Answer: 1", k)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for b in body:
                self.wfile.write(bytes([b])); self.wfile.flush(); time.sleep(float(ARG or 0.5))
            return
        if m == "stall":
            time.sleep(float(ARG or 300)); return
        if m == "huge":  # ARG MB of content
            text = "Answer: 1 " + "x" * int(float(ARG or 50) * 1e6)
            return self.send(200, completion(text, k))
        if m == "huge_chunked":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            head = b'{"choices":[{"index":0,"message":{"role":"assistant","content":"Answer: 1 '
            self.wfile.write(b"%x\r\n%s\r\n" % (len(head), head))
            chunk = b"y" * 65536
            try:
                for _ in range(int(ARG or 1600)):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.write(b"0\r\n\r\n")
            except Exception:
                pass
            return
        if m == "gzipbomb":
            payload = b'{"choices":[{"index":0,"message":{"role":"assistant","content":"Answer: 1 ' + b"z" * int(float(ARG or 200) * 1e6) + b'"}}]}'
            body = gzip.compress(payload, 9)
            return self.send(200, body, "application/json", [("Content-Encoding", "gzip")])
        if m == "badjson":
            return self.send(200, ARG or '{"choices": [', "application/json")
        if m == "429":
            return self.send(429, {"error": {"message": "slow down"}}, extra=[("Retry-After", ARG or "0")])
        if m == "500":
            return self.send(500, {"error": {"message": "boom"}})
        if m == "redirect":
            return self.send(307, "", "text/plain", [("Location", ARG or "http://169.254.169.254/latest")])
        if m == "drop":
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except Exception:
                pass
            return
        if m == "weird":  # ARG: JSON for the whole response
            return self.send(200, ARG)
        if m == "deep":
            return self.send(200, '{"choices":' + "[" * 100000 + "]" * 100000 + "}")
        if m == "content":  # ARG json string content
            return self.send(200, completion(json.loads(ARG), k))
        self.send(500, "unknown mode")


s = ThreadingHTTPServer(("127.0.0.1", 0), H)
s.daemon_threads = True
print(s.server_address[1], flush=True)
s.serve_forever()
