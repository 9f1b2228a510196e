"""Hostile fake OpenAI-compatible server. argv: portfile MODE [param]"""
import sys, json, time, gzip, threading, socket
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
portfile, mode = sys.argv[1], sys.argv[2]
param = sys.argv[3] if len(sys.argv) > 3 else ""
COUNT = {"n": 0}
LOG = open(portfile + ".reqs", "a")

def reply(content, n=1, extra=None):
    d = {"id": "x", "object": "chat.completion", "created": 1, "model": "m",
         "choices": [{"index": i, "message": {"role": "assistant", "content": content}, "finish_reason": "stop",
                      "logprobs": None} for i in range(n)],
         "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
    if extra: d.update(extra)
    return d

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        body = json.dumps({"object": "list", "data": [{"id": "m", "object": "model"}]}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def do_POST(self):
        ln = int(self.headers.get("Content-Length", 0)); raw = self.rfile.read(ln)
        COUNT["n"] += 1
        LOG.write(json.dumps({"path": self.path, "auth": self.headers.get("Authorization"), "n": COUNT["n"]}) + "\n"); LOG.flush()
        try: req = json.loads(raw)
        except Exception: req = {}
        n = req.get("n", 1) or 1
        def send(code, body, ctype="application/json", headers=()):
            self.send_response(code); self.send_header("Content-Type", ctype)
            for k, v in headers: self.send_header(k, v)
            self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
        if mode == "ok":
            send(200, json.dumps(reply(param or "Answer: 1", n)).encode())
        elif mode == "echo":  # echo request + auth header into content
            send(200, json.dumps(reply("Answer: 1 " + self.headers.get("Authorization", "") + " " + self.path + " " + raw.decode()[:2000], n)).encode())
        elif mode == "echoerr":  # echo auth in an error body
            send(400, json.dumps({"error": {"message": "bad key " + self.headers.get("Authorization", "") + " path " + self.path}}).encode())
        elif mode == "trickle":
            body = json.dumps(reply("Answer: 1", n)).encode()
            self.send_response(200); self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body))); self.end_headers()
            try:
                for b in body:
                    self.wfile.write(bytes([b])); self.wfile.flush(); time.sleep(float(param or 0.5))
            except Exception: pass
        elif mode == "stall":
            time.sleep(float(param or 100))
        elif mode == "huge":
            content = "Answer: 1 " + "A" * int(param or 50_000_000)
            send(200, json.dumps(reply(content, n)).encode())
        elif mode == "gzipbomb":
            raw1 = json.dumps(reply("Answer: 1 " + "B" * int(param or 200_000_000), n)).encode()
            body = gzip.compress(raw1, 9)
            send(200, body, headers=[("Content-Encoding", "gzip")])
        elif mode == "status":
            send(int(param or 500), b'{"error":{"message":"nope"}}', headers=[("Retry-After", "0")])
        elif mode == "retryafter":
            send(429, b'{"error":{"message":"slow"}}', headers=[("Retry-After", param or "100000")])
        elif mode == "badjson":
            send(200, (param or '{"choices": [').encode())
        elif mode == "drop":
            self.connection.shutdown(socket.SHUT_RDWR); self.close_connection = True
        elif mode == "redirect":
            send(307, b"", headers=[("Location", param or "http://127.0.0.1:9/v1/chat/completions")])
        elif mode == "raw":  # param is a JSON document to send as body
            send(200, param.encode())
        elif mode == "nanusage":
            send(200, b'{"choices":[{"index":0,"message":{"role":"assistant","content":"Answer: 1"},"finish_reason":"stop"}],"usage":{"prompt_tokens":NaN,"completion_tokens":1e309,"total_tokens":-5}}')
        elif mode == "flood_chunked":
            self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Transfer-Encoding", "chunked"); self.end_headers()
            try:
                head = b'{"choices":[{"index":0,"message":{"role":"assistant","content":"Answer: 1 '
                self.wfile.write(b"%x\r\n%s\r\n" % (len(head), head))
                chunk = b"C" * 65536
                for _ in range(int(param or 3000)):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                tail = b'"},"finish_reason":"stop"}]}'
                self.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(tail), tail))
            except Exception: pass
        else:
            send(500, b"unknown mode")

import os
s = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("FIXPORT", "0"))), H)
s.allow_reuse_address = True
s.daemon_threads = True
open(portfile, "w").write(str(s.server_address[1]))
s.serve_forever()
