"""Shared helpers for probe11 cases (import with sys.path.insert(0, dirname(dirname(__file__))))."""
import http.server, json, os, re, shutil, socket, sqlite3, subprocess, sys, tempfile, threading, time

REPO = os.environ["REPO"]  # the checkout under test (run_all.sh requires it)
VENV = os.environ.get("VENV") or os.path.join(REPO, ".venv")
DATA = os.environ.get("OVERSIGHT_BENCH_DATA") or os.path.join(os.path.dirname(os.path.abspath(REPO)), "shared", "datasets")
OB = os.path.join(VENV, "bin", "oversight-bench")


def env(**extra):
    e = dict(os.environ)
    e.update(PYTHONPATH=REPO, OVERSIGHT_BENCH_DATA=DATA, CI="true", PATH=f"{VENV}/bin:" + e.get("PATH", ""))
    e.pop("OPENAI_API_KEY", None)
    e.setdefault("OVERSIGHT_BENCH_CACHE", tempfile.mkdtemp(prefix="p11cache-"))
    for k, v in extra.items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    return e


def tmp():
    return tempfile.mkdtemp(prefix="p11-")


def ob(*args, cwd=None, timeout=90, input=None, **envx):
    """Run the CLI; (rc, stdout, stderr)."""
    try:
        p = subprocess.run(["nice", "-n", "10", OB, *map(str, args)], cwd=cwd or tempfile.gettempdir(),
                           env=env(**envx), capture_output=True, text=True, timeout=timeout,
                           input=input)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        return "TIMEOUT", (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), \
            (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")


def py(code, timeout=90, **envx):
    """Run python code with the repo on the path; (rc, stdout, stderr)."""
    p = subprocess.run(["nice", "-n", "10", f"{VENV}/bin/python", "-c", code], env=env(**envx),
                       capture_output=True, text=True, timeout=timeout, cwd=tempfile.gettempdir())
    return p.returncode, p.stdout, p.stderr


def held(msg):
    print("HELD: " + " ".join(str(msg).split())[:400])
    sys.exit(0)


def broke(msg):
    print("BROKE: " + " ".join(str(msg).split())[:600])
    sys.exit(0)


def _lines(err):
    ls = [l for l in err.splitlines() if l.strip()]
    # click's usage boilerplate is accepted: keep only the Error line(s)
    if any(l.startswith("Usage:") for l in ls):
        ls = [l for l in ls if not (l.startswith("Usage:") or l.startswith("Try '"))]
    # warnings lines are not the error
    return [l for l in ls if not l.lower().startswith("warning")]


def check_error(rc, out, err, what, want_rc=2, must=None):
    """Verdict for bad input: one-line error, exit 2, no traceback."""
    if "Traceback" in err or "Traceback" in out:
        broke(f"{what}: traceback, last line: {[l for l in err.splitlines() if l.strip()][-1:]}")
    ls = _lines(err)
    if rc != want_rc:
        broke(f"{what}: exit {rc} (want {want_rc}); stderr tail: {err[-300:]!r} stdout tail: {out[-200:]!r}")
    if len(ls) != 1:
        broke(f"{what}: error is {len(ls)} lines: {ls[:4]!r}")
    if must and not re.search(must, ls[0], re.I):
        broke(f"{what}: error line does not name {must!r}: {ls[0]!r}")
    held(f"{what}: exit {rc}, one line: {ls[0][:200]}")


def check_graceful(rc, out, err, what, ok_rcs=(0, 1, 2)):
    """Verdict for a hostile input read: no traceback; exit in ok_rcs; if exit 2, one line."""
    if "Traceback" in err or "Traceback" in out:
        broke(f"{what}: traceback, last line: {[l for l in err.splitlines() if l.strip()][-1:]}")
    if rc not in ok_rcs:
        broke(f"{what}: exit {rc}; stderr tail {err[-300:]!r}")
    if rc == 2 and len(_lines(err)) != 1:
        broke(f"{what}: exit 2 but error is {len(_lines(err))} lines: {_lines(err)[:3]!r}")
    held(f"{what}: exit {rc}; {(_lines(err) or ['(no stderr)'])[-1][:200]}")


def mkrun(d, *extra, protocols="qa_without_article,consultancy,debate", tasks="arith", limit=2):
    rc, out, err = ob("run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", tasks,
                      "--protocols", protocols, "--limit", limit, "--rounds", 1, "--best-of-n", 1,
                      "--output", d, "--quiet", *extra)
    if rc != 0:
        raise SystemExit(f"BROKE: setup run failed rc={rc}: {err[-300:]}")
    return d


def snapshot(d):
    """{relpath: (size, mtime_ns)} of a tree."""
    out = {}
    for root, dirs, files in os.walk(d):
        for f in files + [x for x in dirs if os.path.islink(os.path.join(root, x))]:
            p = os.path.join(root, f)
            st = os.lstat(p)
            out[os.path.relpath(p, d)] = (st.st_size, st.st_mtime_ns)
    return out


def q(db, sql, *args):
    c = sqlite3.connect(db)
    try:
        r = c.execute(sql, args).fetchall()
        c.commit()
        return r
    finally:
        c.close()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class FakeOpenAI:
    """A tiny OpenAI chat server in a thread. `reply(handler, body) -> None` may write anything;
    default: a chat completion with text `text`."""

    def __init__(self, text="Answer: 1", reply=None):
        self.text, self.reply, self.requests = text, reply, []
        outer = self

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                outer.requests.append(("GET", self.path, dict(self.headers), None))
                if outer.reply:
                    return outer.reply(self, None)
                self.send_json({"object": "list", "data": [{"id": "m", "object": "model"}]})

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n) or b"{}")
                outer.requests.append(("POST", self.path, dict(self.headers), body))
                if outer.reply:
                    return outer.reply(self, body)
                self.send_json(completion(outer.text, body))

            def send_json(self, obj, code=200, raw=None):
                data = raw if raw is not None else json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.srv.daemon_threads = True
        self.srv.handle_error = lambda *a: None
        self.port = self.srv.server_address[1]
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def spec(self, extra=""):
        return f"openai:m,base_url=http://127.0.0.1:{self.port}/v1,max_retries=0,timeout=5{extra}"

    def close(self):
        self.srv.shutdown()


def completion(text, body=None, **kw):
    n = (body or {}).get("n") or 1
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": i, "message": {"role": "assistant", "content": text}, "finish_reason": "stop",
                         "logprobs": None} for i in range(n)],
            "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}, **kw}


def all_text(d):
    """Every byte of every file under d (sqlite included), for leak searches."""
    chunks = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            try:
                chunks[p] = open(p, "rb").read()
            except OSError:
                pass
    return chunks


def find_leak(secret_forms, texts):
    """[(where, form)] for each form found (case-insensitive) in texts {name: bytes|str}."""
    hits = []
    for name, t in texts.items():
        s = t.decode("utf-8", "replace") if isinstance(t, bytes) else t
        low = s.lower()
        for f in secret_forms:
            if f.lower() in low:
                hits.append((name, f))
    return hits
