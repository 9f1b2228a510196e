"""web_serve.py RUN OUT1 OUT2: two `serve` instances; forged/replayed/cross-port sign-ins must all fail."""
import os, re, socket, subprocess, sys, time, urllib.request, urllib.error, urllib.parse, http.cookiejar
run, out1, out2 = sys.argv[1:4]
def free():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
procs = []
def start(out):
    p = free()
    pr = subprocess.Popen([sys.executable, "-m", "oversight_bench.cli", "serve", "--from", run, "--output", out, "--port", str(p), "--token", "orgtokenP9xyz12345"],
                          stdout=subprocess.DEVNULL, stderr=open(out + ".err", "w"))
    procs.append(pr)
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{p}/style.css", timeout=1); return p
        except Exception:
            time.sleep(0.2)
    raise SystemExit(f"BROKE: serve did not start: {open(out + '.err').read()[-200:]}")
class NoRedir(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k): return None
opener = urllib.request.build_opener(NoRedir)
def req(port, path, data=None, cookie=None, origin=True):
    h = {}
    if cookie: h["Cookie"] = cookie
    if origin is True and data is not None: h["Origin"] = f"http://127.0.0.1:{port}"
    elif isinstance(origin, str): h["Origin"] = origin
    r = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=urllib.parse.urlencode(data).encode() if data is not None else None, headers=h)
    try:
        resp = opener.open(r, timeout=10)
    except urllib.error.HTTPError as e:
        resp = e
    return resp.status if hasattr(resp, "status") else resp.code, resp.headers, resp.read().decode("utf-8", "replace")
def token(port):
    st, h, body = req(port, "/")
    c = h.get("Set-Cookie", ""); m = re.search(r"ob_signin=([^;]+)", c)
    return m.group(1).strip('"') if m else None
try:
    a, b = start(out1), start(out2)
    res = []
    def signin(port, tok, form=None, origin=True):
        st, h, _ = req(port, "/signin", {"csrf": form if form is not None else tok, "name": "mallory"}, cookie=f"ob_signin={tok}", origin=origin)
        return st, "ob_session" in (h.get("Set-Cookie") or "")
    t1 = token(a); t2 = token(b)
    if not t1: print("BROKE: no sign-in token issued"); raise SystemExit
    checks = {
        "forged": signin(a, "abc.def"),
        "cross_port": signin(a, t2),
        "evil_origin": signin(a, token(a), origin=f"http://127.0.0.1:{b}"),
        "null_origin": signin(a, token(a), origin="null"),
        "mismatch": signin(a, token(a), form="zzz"),
    }
    good = token(a)
    checks["good"] = signin(a, good)
    checks["replay"] = signin(a, good)
    bad = [k for k, (st, ok) in checks.items() if ok and k != "good"]
    if not checks["good"][1]: print(f"BROKE: a real sign-in failed ({checks['good']})")
    elif bad: print(f"BROKE: sign-in succeeded for {bad}")
    else:
        st, _, _ = req(a, "/organiser", cookie="ob_organiser=wrong")
        st2, _, _ = req(a, "/organiser?token=orgtokenP9xyz1234")
        print("HELD" if st in (401, 403) and st2 in (401, 403) else f"BROKE: organiser page with a wrong token: {st} {st2}")
finally:
    for p in procs: p.terminate(); p.wait()
