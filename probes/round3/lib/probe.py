"""Shared helpers for the adversarial probe cases (issue 37, round three).

A case imports this module, does one thing to the project at $REPO and calls `held(msg)` (exit 0)
or `broke(msg)` (exit 1); anything else (an exception of the case itself) is exit 3 = ERROR.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import http.server
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(os.environ.get("REPO", "/work/main")).resolve()
_venv_env = os.environ.get("PROBE_VENV")
VENV = Path(_venv_env) if _venv_env else (REPO / ".venv" if (REPO / ".venv/bin/python").exists() else Path("/work/main/.venv"))
PY = str(VENV / "bin" / "python")
DATA = os.environ.get("OVERSIGHT_BENCH_DATA", "/work/shared/datasets")
PROBE = Path(__file__).resolve().parent.parent


def held(msg: str) -> None:
    print(f"HELD {msg}"[:400].replace("\n", " "))
    sys.exit(0)


def broke(msg: str) -> None:
    print(f"BROKE {msg}"[:400].replace("\n", " "))
    sys.exit(1)


def error(msg: str) -> None:
    print(f"ERROR {msg}"[:400].replace("\n", " "))
    sys.exit(3)


def tmpdir(tag: str) -> Path:
    d = Path(tempfile.mkdtemp(prefix=f"probe-{tag}-", dir="/tmp"))
    return d


def base_env(extra: dict | None = None, pythonpath: list[str] | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OVERSIGHT_BENCH")}
    env.update({"OVERSIGHT_BENCH_DATA": DATA, "PYTHONPATH": ":".join([*(pythonpath or []), str(REPO)]),
                "PATH": f"{VENV}/bin:" + os.environ.get("PATH", "/usr/bin:/bin"),
                "NO_COLOR": "1", "COLUMNS": "200"})
    env.setdefault("OVERSIGHT_BENCH_CACHE", "/tmp/probe-cache-home")
    if extra:
        env.update(extra)
    return env


CLI = "import sys; from oversight_bench.cli import main; sys.argv[0]='oversight-bench'; main()"


def ob(args, *, env=None, timeout=120, cwd=None, pythonpath=None, input=None) -> subprocess.CompletedProcess:
    """Run `oversight-bench ARGS` from $REPO's code; never raises on timeout (returncode 124)."""
    cmd = [PY, "-c", CLI, *map(str, args)]
    try:
        return subprocess.run(cmd, env=base_env(env, pythonpath), cwd=cwd or "/tmp", capture_output=True,
                              timeout=timeout, input=input)
    except subprocess.TimeoutExpired as exc:
        return subprocess.CompletedProcess(cmd, 124, exc.stdout or b"", exc.stderr or b"")


def ob_popen(args, *, env=None, cwd=None, pythonpath=None, **kw) -> subprocess.Popen:
    cmd = [PY, "-c", CLI, *map(str, args)]
    return subprocess.Popen(cmd, env=base_env(env, pythonpath), cwd=cwd or "/tmp", stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, **kw)


def text(b) -> str:
    return b.decode("utf-8", "replace") if isinstance(b, (bytes, bytearray)) else (b or "")


def err_of(p) -> str:
    return text(p.stderr)


def out_of(p) -> str:
    return text(p.stdout)


def last_line(s: str) -> str:
    lines = [ln for ln in s.strip().splitlines() if ln.strip()]
    return lines[-1][:250] if lines else "(nothing)"


def has_traceback(p) -> bool:
    return "Traceback (most recent call last)" in err_of(p) or "Traceback (most recent call last)" in out_of(p)


def one_line_error(p, rc=2) -> str | None:
    """None when p ended as the project's one-line error (exit rc, an `error:` line, no traceback),
    else why not."""
    if p.returncode == 124:
        return "timed out (hang)"
    if has_traceback(p):
        return "traceback: " + last_line(err_of(p))
    if p.returncode != rc:
        return f"exit {p.returncode} (expected {rc}): " + last_line(err_of(p) or out_of(p))
    if "error:" not in err_of(p):
        return "no error: line: " + last_line(err_of(p))
    return None


def no_traceback(p) -> str | None:
    if p.returncode == 124:
        return "timed out (hang)"
    if has_traceback(p):
        return "traceback: " + last_line(err_of(p))
    if p.returncode not in (0, 1, 2):
        return f"exit {p.returncode}: " + last_line(err_of(p))
    return None


def snapshot(folder: Path) -> dict[str, str]:
    """path -> sha256 of every file (and 'DIR' for folders) under folder."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for d in dirs:
            out[os.path.relpath(os.path.join(root, d), folder)] = "DIR"
        for f in files:
            p = os.path.join(root, f)
            try:
                out[os.path.relpath(p, folder)] = hashlib.sha256(Path(p).read_bytes()).hexdigest()
            except OSError:
                out[os.path.relpath(p, folder)] = "UNREADABLE"
    return out


def diff(a: dict, b: dict) -> str:
    gone = sorted(set(a) - set(b))
    new = sorted(set(b) - set(a))
    changed = sorted(k for k in set(a) & set(b) if a[k] != b[k])
    parts = []
    if gone:
        parts.append(f"removed {gone[:4]}")
    if changed:
        parts.append(f"changed {changed[:4]}")
    if new:
        parts.append(f"added {new[:4]}")
    return "; ".join(parts)


SMOKE = ["--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "boolq,quality",
         "--protocols", "qa_without_article,consultancy,debate", "--limit", "2", "--quiet"]


def base_run() -> Path:
    """A finished scripted run (made once per checkout, cached); callers copy it."""
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    key = hashlib.sha1(f"{REPO}|{head}|{PY}".encode()).hexdigest()[:12]
    cache = Path(f"/tmp/probe-base-{key}")
    cache.mkdir(exist_ok=True)
    with open(cache / "lockfile", "w") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        run = cache / "run"
        if not (run / "results.sqlite").exists() or not (cache / "ok").exists():
            shutil.rmtree(run, ignore_errors=True)
            p = ob(["run", *SMOKE, "--output", run], timeout=300)
            if p.returncode != 0:
                error("base run failed: " + last_line(err_of(p)))
            (cache / "ok").write_text("ok")
    return run


def copy_run(tag: str = "run") -> Path:
    d = tmpdir(tag)
    dst = d / "run"
    shutil.copytree(base_run(), dst)
    return dst


def db(run: Path) -> sqlite3.Connection:
    c = sqlite3.connect(run / "results.sqlite", isolation_level=None)
    return c


# -- fake OpenAI-compatible server ------------------------------------------------------------------

def chat_reply(content: str = "Answer: 1", usage=None, n=1, extra=None) -> dict:
    d = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
         "choices": [{"index": i, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                     for i in range(n)],
         "usage": usage if usage is not None else {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}}
    if extra:
        d.update(extra)
    return d


class Server:
    """A loopback HTTP server whose every request is answered by `handler(req, h)`, where req is a
    dict (method, path, headers, body) and h the BaseHTTPRequestHandler (write to h.wfile). Bounded:
    it stops answering after `max_requests`."""

    def __init__(self, handler, max_requests: int = 2000):
        self.handler = handler
        self.requests: list[dict] = []
        self.max_requests = max_requests
        outer = self

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def _do(self):
                n = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(n) if n else b""
                req = {"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body}
                try:
                    req["json"] = json.loads(body) if body else None
                except ValueError:
                    req["json"] = None
                outer.requests.append(req)
                if len(outer.requests) > outer.max_requests:
                    self.close_connection = True
                    return
                try:
                    outer.handler(req, self)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

            do_GET = do_POST = _do

        class S(http.server.ThreadingHTTPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.httpd = S(("127.0.0.1", 0), H)
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.t = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.t.start()

    def close(self):
        self.httpd.shutdown()


def send_json(h, obj, status=200, headers=None):
    raw = obj if isinstance(obj, (bytes, bytearray)) else json.dumps(obj).encode()
    h.send_response(status)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(raw)))
    for k, v in (headers or {}).items():
        h.send_header(k, v)
    h.end_headers()
    h.wfile.write(raw)
    h.wfile.flush()


def ok_handler(req, h):
    send_json(h, chat_reply())


def openai_spec(server: Server, **opts) -> str:
    o = {"base_url": server.url, "api_key": "sk-probe-secret-0123456789", **opts}
    return "openai:probe-model," + ",".join(f"{k}={v}" for k, v in o.items())


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def kill_tree(p: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(p.pid, signal.SIGKILL)
    with contextlib.suppress(Exception):
        p.wait(5)


def grep_tree(folder: Path, needle: bytes) -> list[str]:
    hits = []
    for root, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(root, f)
            try:
                if needle.lower() in Path(p).read_bytes().lower():
                    hits.append(os.path.relpath(p, folder))
            except OSError:
                pass
    return hits


def wait_port(port: int, timeout: float = 30) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return True
        except OSError:
            time.sleep(0.1)
    return False


# -- plugins on a PYTHONPATH folder (the shared venv is never modified) -------------------------------

def make_plugin(site: Path, module: str, source: str, *, dist_name: str | None = "probe-plugin", ep_name: str = "probe",
                version: str = "0.1", ep_target: str | None = None, metadata: str | None = None) -> Path:
    """A package `module` with `source` as its __init__.py and a .dist-info declaring an entry point
    `ep_name = ep_target (default: module)` in the group oversight_bench. dist_name None: METADATA
    without a Name field."""
    site.mkdir(parents=True, exist_ok=True)
    pkg = site / module
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text(source)
    info = site / f"{(dist_name or 'nameless').replace('-', '_')}-{version}.dist-info"
    info.mkdir(exist_ok=True)
    if metadata is None:
        metadata = "Metadata-Version: 2.1\n" + (f"Name: {dist_name}\n" if dist_name else "") + f"Version: {version}\n"
    (info / "METADATA").write_text(metadata)
    (info / "entry_points.txt").write_text(f"[oversight_bench]\n{ep_name} = {ep_target or module}\n")
    return site


def _hook(tp, val, tb):
    import traceback
    msg = "".join(traceback.format_exception_only(tp, val)).strip().replace("\n", " ")
    print(f"ERROR case exception: {msg}"[:400], flush=True)
    sys.stderr.write("".join(traceback.format_exception(tp, val, tb)))
    sys.stderr.flush()
    os._exit(3)


sys.excepthook = _hook
