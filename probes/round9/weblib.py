"""Web harness: start `view` / `serve` on a free port, talk to it with a browser-like cookie jar."""
import http.cookiejar, os, re, socket, subprocess, sys, time, urllib.error, urllib.parse, urllib.request
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import *


class Server:
    def __init__(self, *args, wait=60, **envx):
        self.port = free_port()
        self.p = subprocess.Popen([OB, *args, "--port", str(self.port)], env=env(**envx), stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, cwd=tempfile.gettempdir())
        self.lines = []
        t = time.time()
        while time.time() - t < wait:
            if self.p.poll() is not None:
                self.lines += self.p.stdout.read().splitlines()
                raise SystemExit(f"BROKE: server exited rc={self.p.returncode}: {self.lines[-3:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        self.url = f"http://127.0.0.1:{self.port}"
        self.started = time.time() - t

    def out(self):
        """What it printed so far (non-blocking best effort)."""
        os.set_blocking(self.p.stdout.fileno(), False)
        try:
            data = self.p.stdout.read() or ""
        except (TypeError, OSError):
            data = ""
        self.lines += data.splitlines()
        return self.lines

    def close(self):
        self.p.terminate()
        try:
            self.p.wait(5)
        except subprocess.TimeoutExpired:
            self.p.kill()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):
        return None


def browser(follow=True):
    jar = http.cookiejar.CookieJar()
    handlers = [urllib.request.HTTPCookieProcessor(jar)] + ([] if follow else [NoRedirect()])
    return urllib.request.build_opener(*handlers), jar


def fetch(opener, url, data=None, headers=None, timeout=10):
    """(status, body, headers)"""
    req = urllib.request.Request(url, data=urllib.parse.urlencode(data).encode() if isinstance(data, dict) else data,
                                 headers=headers or {})
    try:
        with opener.open(req, timeout=timeout) as r:
            return r.status, r.read().decode(errors="replace"), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace"), dict(e.headers)
