"""A model server that echoes its request (issue 37.4): the API key it was sent (Authorization) and
a credential in base_url's query come back inside the model's answer. Neither may reach the store
(results.sqlite and its log), `export`, or an exported view; and `timeout=inf` is refused in one
line before anything is written. A local fake HTTP server stands for the echoing one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from helpers import REPO

KEY = "sk-echo-SECRET-91b2c3d4e5f60718"
QUERY = "qcred-5f4e3d2c1b0a9988"  # a query credential that is not key-shaped


class _Echo(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        echoed = {"path": self.path, "authorization": self.headers.get("authorization"),
                  "query": dict(p.split("=", 1) for p in self.path.partition("?")[2].split("&") if "=" in p),
                  "body_len": len(body)}
        content = "Answer: 1\nYou sent me " + json.dumps(echoed)
        reply = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": content}}],
                            "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


@pytest.fixture()
def echo_server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    srv.shutdown()
    srv.server_close()


def _cli(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    full.update({"PYTHONPATH": str(REPO), **(env or {})})
    return subprocess.run([sys.executable, "-m", "oversight_bench.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=full, timeout=120)


def _hits(root: Path) -> list[str]:
    found = []
    for p in root.rglob("*"):
        if p.is_file():
            data = p.read_bytes().lower()
            found += [f"{p.relative_to(root)}: {s}" for s in (KEY, QUERY) if s.lower().encode() in data]
    return found


def test_an_echoing_server_leaks_nothing_into_store_export_or_view(echo_server, tmp_path):
    out = tmp_path / "out"
    spec = f"openai:m,base_url={echo_server}?api-key={QUERY},max_retries=0,timeout=10"
    res = _cli("run", "--judge", spec, "--agent", "scripted:default", "--tasks", "prontoqa", "--limit", "2",
               "--protocols", "qa_without_article", "--output", str(out), "--quiet", cwd=tmp_path,
               env={"OPENAI_API_KEY": KEY})
    assert res.returncode == 0, res.stderr[-2000:]
    # the server did echo both (the run's records carry its answers)
    exported = _cli("export", str(out), cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr[-2000:]
    assert "You sent me" in exported.stdout
    assert not _hits(out), _hits(out)  # results.sqlite (and any log), config.json
    assert KEY.lower() not in exported.stdout.lower() and QUERY.lower() not in exported.stdout.lower()
    site = tmp_path / "site"
    assert _cli("view", str(out), "--export", str(site), cwd=tmp_path).returncode == 0
    assert not _hits(site), _hits(site)
    for text in (res.stdout, res.stderr):
        assert KEY.lower() not in text.lower() and QUERY.lower() not in text.lower()


def test_timeout_inf_is_one_line_and_writes_nothing(tmp_path):
    for value in ("inf", "nan", "-1", "1e999"):
        out = tmp_path / f"o-{value}"
        res = _cli("run", "--judge", f"openai:m,base_url=http://127.0.0.1:9/v1,timeout={value}", "--agent",
                   "scripted:default", "--tasks", "prontoqa", "--limit", "1", "--protocols", "qa_without_article",
                   "--output", str(out), cwd=tmp_path, env={"OPENAI_API_KEY": KEY})
        err = res.stderr.strip().splitlines()
        assert res.returncode == 2 and len(err) == 1 and "timeout" in err[0] and "Traceback" not in res.stderr, res.stderr
        assert not out.exists()
