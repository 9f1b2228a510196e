"""Real llama.cpp servers (`python -m llama_cpp.server`, the `[local]` extra, as a user starts it) on
loopback for the integration tests: start one or several serving an embedded model (smollm2-135m
by default), read their logs (the "Disconnected from client" lines a client's dropped requests
leave), kill and restart one."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    """One server process on `port`, its stdout and stderr in `log` (a pipe would fill and block it)."""

    def __init__(self, log: Path, port: int | None = None, n_ctx: int = 4096, threads: int = 2, model: str = "smollm2-135m"):
        self.log, self.port, self.n_ctx, self.threads, self.model = log, port or free_port(), n_ctx, threads, model
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    def start(self, timeout: float = 90) -> "LlamaServer":
        from model_adapters.local_models import model_path

        self.starts += 1
        with open(self.log, "a") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "llama_cpp.server", "--model", str(model_path(self.model)), "--n_threads", str(self.threads),
                 "--n_ctx", str(self.n_ctx), "--host", "127.0.0.1", "--port", str(self.port)],
                stdout=err, stderr=err)  # its "Disconnected from client" lines are print()s: on stdout
        t0 = time.monotonic()
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited ({self.proc.returncode}): {self.log.read_text()[-2000:]}")
            try:
                with _NO_PROXY.open(self.url + "/models", timeout=1) as r:
                    json.load(r)
                return self
            except OSError:
                if time.monotonic() - t0 > timeout:
                    raise RuntimeError(f"llama_cpp.server did not come up within {timeout:g} s") from None
                time.sleep(0.2)

    def kill(self) -> None:
        """SIGKILL: a replica that dies mid-request."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def disconnects(self) -> int:
        """Requests the server saw dropped by the client: llama_cpp.server prints "Disconnected from
        client ... before llm invoked" for each (and "disconnected" for a dropped stream)."""
        return sum("disconnected" in line.lower() for line in self.log_text().splitlines())

    def requests(self) -> int:
        """Chat completions the server answered (uvicorn's access log, on stdout)."""
        return self.log_text().count('"POST /v1/chat/completions')
