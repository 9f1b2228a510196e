"""Hostile OpenAI-compatible server. usage: fake.py MODE PORTFILE [ARG]"""
import sys, json, time, socket, gzip, threading, random
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
MODE, PF, ARG = sys.argv[1], sys.argv[2], (sys.argv[3] if len(sys.argv) > 3 else "")
COUNT = {"n": 0}

def completion(text, model="m"):
    return {"id": "x", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop", "logprobs": None}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}}
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def send_json(self, obj, code=200, extra=None):
        b = json.dumps(obj).encode()
        self.send_response(code); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        for k, v in (extra or {}).items(): self.send_header(k, v)
        self.end_headers(); self.wfile.write(b)
    def do_GET(self):
        self.send_json({"object": "list", "data": [{"id": "m", "object": "model"}]})
    def do_POST(self):
        COUNT["n"] += 1
        n = int(self.headers.get("Content-Length", 0)); body = self.rfile.read(n)
        m = MODE
        if HOOK is not None:
            return HOOK(self, body)
        if m == "ok":
            return self.send_json(completion("Answer: 1"))
        if m == "prog":
            return self.send_json(completion("```python\n" + open(ARG).read() + "\n```"))
        if m == "slow":
            time.sleep(float(ARG or 1)); return self.send_json(completion("Answer: 1"))
        if m == "echo":
            txt = "Answer: 1 ECHO path=%s auth=%s body=%s" % (self.path, self.headers.get("Authorization"), body[:300].decode("latin1"))
            return self.send_json(completion(txt))
        if m == "echoerr":
            return self.send_json({"error": {"message": "bad key %s at %s" % (self.headers.get("Authorization"), self.path)}}, 400)
        if m == "trickle":
            b = json.dumps(completion("Answer: 1")).encode()
            self.send_response(200); self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(b))); self.end_headers()
            for ch in b:
                try: self.wfile.write(bytes([ch])); self.wfile.flush()
                except Exception: return
                time.sleep(float(ARG or 0.5))
            return
        if m == "stall":
            time.sleep(3600); return
        if m == "huge":
            size = int(ARG or 50_000_000)
            pre = b'{"id":"x","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Answer: 1 '
            post = b'"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}'
            self.send_response(200); self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(pre) + size + len(post))); self.end_headers()
            try:
                self.wfile.write(pre); chunk = b"A" * 1_000_000
                for i in range(size // 1_000_000): self.wfile.write(chunk)
                self.wfile.write(b"A" * (size % 1_000_000)); self.wfile.write(post)
            except Exception: pass
            return
        if m == "hugenolen":
            self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Connection", "close"); self.end_headers()
            try:
                self.wfile.write(b'{"choices":[{"index":0,"message":{"role":"assistant","content":"Answer: 1 ')
                for i in range(int(ARG or 200)): self.wfile.write(b"B" * 1_000_000)
            except Exception: pass
            return
        if m == "gzipbomb":
            raw = json.dumps(completion("Answer: 1 " + "C" * int(ARG or 200_000_000))).encode()
            b = gzip.compress(raw, 9)
            self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b); return
        if m == "badjson":
            b = b'{"choices": [ {"message": '
            self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b); return
        if m == "wrongshape":
            return self.send_json({"choices": [{"message": {"content": ["x", {"a": 1}]}}], "usage": "lots"})
        if m == "deepjson":
            b = b'{"choices":' + b"[" * 100000 + b"]" * 100000 + b"}"
            self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b); return
        if m == "s429":
            return self.send_json({"error": {"message": "slow down"}}, 429, {"Retry-After": ARG or "1"})
        if m == "s500":
            return self.send_json({"error": {"message": "boom"}}, 500)
        if m == "redirect":
            self.send_response(307); self.send_header("Location", ARG or "http://169.254.169.254/latest"); self.send_header("Content-Length", "0"); self.end_headers(); return
        if m == "drop":
            self.connection.shutdown(socket.SHUT_RDWR); self.connection.close(); return
        if m == "nan":
            b = b'{"choices":[{"index":0,"message":{"role":"assistant","content":"Answer: 1"},"finish_reason":"stop","logprobs":{"content":[{"token":"1","logprob":NaN,"top_logprobs":[{"token":"1","logprob":NaN},{"token":"2","logprob":Infinity}]}]}}],"usage":{"prompt_tokens":1e400,"completion_tokens":-5,"total_tokens":NaN}}'
            self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b); return
        if m == "control":
            return self.send_json(completion("Answer: 1 \x00\x1b[31mRED\x1b]0;title\x07 \ud800 <script>alert(1)</script>"))
        self.send_json(completion("Answer: 1"))
import os as _os
HOOK = None
if _os.environ.get("FAKE_HOOK"):
    _g = dict(globals()); exec(open(_os.environ["FAKE_HOOK"]).read(), _g); HOOK = _g["hook"]
srv = ThreadingHTTPServer(("127.0.0.1", 0), H); srv.daemon_threads = True
open(PF + ".tmp", "w").write(str(srv.server_address[1])); import os; os.rename(PF + ".tmp", PF)
srv.serve_forever()
