"""Hostile OpenAI-compatible server: fakesrv.py PORTFILE MODE"""
import sys, json, time, gzip, socket, threading, zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
portfile, MODE = sys.argv[1], sys.argv[2]
def reply(content, **extra):
    d = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
         "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
         "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
    d.update(extra); return d
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def send_json(self, obj, code=200, headers=()):
        b = json.dumps(obj).encode()
        self.send_response(code); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(b)))
        for k, v in headers: self.send_header(k, v)
        self.end_headers(); self.wfile.write(b)
    def do_GET(self): self.send_json({"data": [{"id": "m", "object": "model"}]})
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0); body = self.rfile.read(n).decode(errors="replace")
        auth = self.headers.get("Authorization", ""); echo = f"{auth} {self.path} {self.headers.get('api-key','')} {body[:2000]}"
        m = MODE
        if m == "echo": return self.send_json(reply("Answer: 1. " + echo))
        if m == "echo_err": return self.send_json({"error": {"message": "bad key " + echo, "type": "invalid_request_error"}}, 400)
        if m == "echo_500": return self.send_json({"error": {"message": "oops " + echo}}, 500)
        if m == "echo_fields": return self.send_json(reply("Answer: 1", id="x" + auth, model=auth, system_fingerprint=self.path))
        if m == "echo_split":
            key = auth.split()[-1] if auth else ""
            return self.send_json(reply("Answer: 1 " + " ".join(key[i:i+3] for i in range(0, len(key), 3))))
        if m == "echo_escaped":
            key = auth.split()[-1] if auth else ""
            return self.send_json(reply("Answer: 1 " + "\u200b".join(key)))
        if m == "echo_logprobs":
            key = auth.split()[-1] if auth else ""
            toks = [{"token": key[i:i+4], "logprob": -0.1, "top_logprobs": [{"token": key[i:i+4], "logprob": -0.1}]} for i in range(0, len(key), 4)]
            d = reply("Answer: 1"); d["choices"][0]["logprobs"] = {"content": toks}; return self.send_json(d)
        if m == "trickle":
            b = json.dumps(reply("Answer: 1" + " " * 200)).encode()
            self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(b))); self.end_headers()
            for ch in b:
                try: self.wfile.write(bytes([ch])); self.wfile.flush(); time.sleep(0.5)
                except Exception: return
            return
        if m == "stall_headers":
            time.sleep(120); return
        if m == "flood":
            pad = "x" * (50 * 1024 * 1024)
            return self.send_json(reply("Answer: 1 " + pad))
        if m == "chunked_flood":
            self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Transfer-Encoding", "chunked"); self.end_headers()
            try:
                self.wfile.write(b'%x\r\n%s\r\n' % (len(b'{"id":"x","choices":[{"message":{"role":"assistant","content":"'), b'{"id":"x","choices":[{"message":{"role":"assistant","content":"'))
                chunk = b"A" * 65536
                for _ in range(100000): self.wfile.write(b'%x\r\n%s\r\n' % (len(chunk), chunk))
            except Exception: pass
            return
        if m == "gzip_bomb":
            co = zlib.compressobj(9, zlib.DEFLATED, 31); data = b'{"id":"x","choices":[{"message":{"role":"assistant","content":"' 
            z = co.compress(data) + b"".join(co.compress(b"A" * (1 << 20)) for _ in range(1024)) + co.flush()
            self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Encoding", "gzip"); self.send_header("Content-Length", str(len(z))); self.end_headers(); self.wfile.write(z); return
        if m == "429_storm": return self.send_json({"error": {"message": "slow down"}}, 429, [("Retry-After", "0")])
        if m == "429_long_retry": return self.send_json({"error": {"message": "slow down"}}, 429, [("Retry-After", "100000")])
        if m == "redirect":
            self.send_response(307); self.send_header("Location", "http://169.254.169.254/latest/meta-data"); self.send_header("Content-Length", "0"); self.end_headers(); return
        if m == "drop": self.connection.shutdown(socket.SHUT_RDWR); self.close_connection = True; return
        if m == "badjson":
            b = b'{"choices": [ {"message": '; self.send_response(200); self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b); return
        if m == "deepjson":
            b = b"[" * 500000 + b"]" * 500000; self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b); return
        if m == "empty_choices": return self.send_json(reply("x", choices=[]))
        if m == "null_content": return self.send_json(reply(None))
        if m == "usage_huge": return self.send_json(reply("Answer: 1", usage={"prompt_tokens": 10**30, "completion_tokens": 10**30, "total_tokens": 2 * 10**30}))
        if m == "usage_negative": return self.send_json(reply("Answer: 1", usage={"prompt_tokens": -100, "completion_tokens": -5, "total_tokens": -105}))
        if m == "usage_string": return self.send_json(reply("Answer: 1", usage={"prompt_tokens": "ten", "completion_tokens": None, "total_tokens": [1]}))
        if m == "surrogate":
            b = b'{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Answer: 1 \\ud800"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}'
            self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b); return
        if m == "nan_logprob":
            d = reply("Answer: 1"); d["choices"][0]["logprobs"] = {"content": [{"token": "1", "logprob": float("nan"), "top_logprobs": [{"token": "1", "logprob": float("nan")}, {"token": "2", "logprob": float("inf")}]}]}
            b = json.dumps(d).encode(); self.send_response(200); self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b); return
        return self.send_json(reply("Answer: 1"))
s = ThreadingHTTPServer(("127.0.0.1", 0), H); s.daemon_threads = True
open(portfile + ".tmp", "w").write(str(s.server_address[1])); import os; os.rename(portfile + ".tmp", portfile)
s.serve_forever()
