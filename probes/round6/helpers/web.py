import sys, os, socket, subprocess, tempfile, time, shutil, http.client, re, urllib.parse
sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import imp
def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
class Srv:
    def __init__(self, args, d):
        self.port = free_port(); self.d = d
        self.p = subprocess.Popen(["nice", imp.PY, "-m", "oversight_bench.cli", *args, "--port", str(self.port)], cwd=d, env=imp.ENV,
                                  stdout=open(d + "/srv.out", "w"), stderr=open(d + "/srv.err", "w"))
        for _ in range(100):
            try: socket.create_connection(("127.0.0.1", self.port), 0.2).close(); break
            except OSError: time.sleep(0.1)
    def req(self, method, path, body=None, headers=None, timeout=10):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        h = {"Host": f"127.0.0.1:{self.port}"}; h.update(headers or {})
        if body is not None and "Content-Type" not in h: h["Content-Type"] = "application/x-www-form-urlencoded"
        c.request(method, path, body=body, headers=h); r = c.getresponse(); b = r.read(); c.close()
        return r.status, r.getheaders(), b.decode(errors="replace")
    def stop(self):
        self.p.terminate()
        try: self.p.wait(5)
        except Exception: self.p.kill()
        err = open(self.d + "/srv.err").read()
        return "Traceback" in err
def setup_run(d, limit=1):
    imp.ob(["run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "arith", "--limit", str(limit),
            "--protocols", "qa_without_article,debate", "--output", "out/r", "--quiet"], d)
