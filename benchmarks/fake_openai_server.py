"""A fake OpenAI-compatible chat server on loopback, for throughput benchmarks and fault tests.

It answers `/v1/chat/completions` after a fixed latency L (an asyncio sleep, so thousands of
requests can wait at once) with canned texts in the formats the protocols parse: `Answer: 1|2`
for the judge, `Thinking:/Argument:` when asked to argue, a question when asked for one. The
choice is a hash of the prompt, so the same request always gets the same reply. It counts what
it served and when (first request in, last response out), which is how throughput is measured
without trusting the client under test.

A seeded fault mode makes a share of requests fail the ways real APIs do: 500s, 429s with
`Retry-After`, hangs past the client's timeout, dropped connections, unparseable JSON bodies, and
empty, malformed or choice-less completions. Transport faults are drawn per (prompt, attempt) and stop after
`max_faults` attempts of a prompt, so a client that retries always gets through; content faults
are drawn per prompt, so they are stable and counted as invalid answers. A `script` instead gives
the faults of each prompt's first attempts in order (`["429", "500"]`: a 429, a 500, then an
answer), for tests that need one exact sequence; `record` keeps every request (path, query,
headers, body) for `GET /log`.

A latency mix (`latency_mix`, or `--latency-mix realistic`) replaces the fixed latency by one drawn
per (prompt, attempt) from seeded bands, e.g. most answers in 50-300 ms and a few % in several
seconds, as a real API serves them; with `faults` it gives the realistic load of the 100k-call
benchmark (`scale_100k.py`). The server adds up the latency it served (`latency_sum_s` in `/stats`:
the latency bound of a client at concurrency C is that sum / C) and, with `track=True`, counts the
requests per call (a hash of its messages and seed: `GET /seen`), so a resumed run can be checked for
repeated calls.

Run it in its own process (`start_server(...)` does) so it never competes with the client's
event loop: `python benchmarks/fake_openai_server.py --latency 0.2 --port 8000`.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from typing import Any

FAULT_KINDS = ("500", "429", "hang", "drop", "badjson", "empty", "malformed", "nochoices")
TRANSPORT_FAULTS = ("500", "429", "hang", "drop", "badjson")


@dataclass
class ServerConfig:
    latency: float = 0.0  # seconds before each answer
    seed: int = 0
    #: share of requests per fault kind, e.g. {"500": 0.05, "hang": 0.01}
    faults: dict[str, float] = field(default_factory=dict)
    max_faults: int = 2  # transport faults per prompt at most; later attempts succeed
    retry_after: float = 0.05  # seconds, sent with 429s
    hang_s: float = 30.0  # how long a "hang" holds the request (should exceed the client timeout)
    api_key: str | None = None  # when set, other keys get 401
    echo_key: bool = False  # put the whole rejected key in the 401 message (harsher than OpenAI)
    model: str = "fake-judge"
    #: the faults of each prompt's first attempts, in order (overrides `faults`), e.g. ["429", "drop"];
    #: also "status:CODE" (that HTTP status with an OpenAI-style error body)
    script: list[str] = field(default_factory=list)
    record: bool = False  # keep every chat request for GET /log
    #: latency bands [[share, low s, high s], ...] drawn per (prompt, attempt), uniform in the band;
    #: shares should sum to 1 (overrides `latency`); REALISTIC_MIX is the benchmark's
    latency_mix: list[list[float]] = field(default_factory=list)
    track: bool = False  # count requests per call (messages and seed) for GET /seen
    #: requests answered at once (0: any number); the others queue, as on a llama.cpp server with one slot
    slots: int = 0
    #: the usage every answer reports, [prompt_tokens, completion_tokens] (None: counted from the text)
    usage: list[int] | None = None


#: most answers in 50-300 ms, 4% at 1-3 s, 1% at 3-8 s (a loaded API's long tail)
REALISTIC_MIX = [[0.95, 0.05, 0.30], [0.04, 1.0, 3.0], [0.01, 3.0, 8.0]]
#: the same body without the tail (and used without faults): a fast, healthy server
FAST_MIX = [[1.0, 0.05, 0.30]]
#: with the mix: 1.5% 429s (Retry-After 1 s), 0.5% 500s, 0.2% dropped connections, per attempt
REALISTIC_FAULTS = {"429": 0.015, "500": 0.005, "drop": 0.002}


def _h(*parts: Any) -> int:
    return int.from_bytes(hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8).digest(), "big")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def canned_reply(messages: list[dict], i: int, seed: int) -> str:
    """What a cooperative model would say to `messages`; the i-th of n samples."""
    last = _text(messages[-1].get("content")) if messages else ""
    h = _h(seed, json.dumps(messages, sort_keys=True, ensure_ascii=False), i)
    if messages and messages[-1].get("role") == "assistant":  # prefilled "Answer: "
        return str(1 + h % 2)
    if "Argument:" in last and "Thinking:" in last:
        return (f"Thinking: the strongest point is {h % 97}.\n"
                f"Argument: My answer is correct because of reason {h % 89}, which the other side ignores.")
    low = last.lower()
    if "most persuasive" in low:  # the best-of-N scorer answers with a letter (H.7)
        return f"Answer: {'ab'[h % 2]}"
    if "ask" in low and "question" in low and "Answer:" not in last[-200:]:
        return "Why do you claim that your answer is correct?"
    return f"Answer: {1 + h % 2}"


def _logprobs_block(text: str, h: int, top: int) -> dict:
    """OpenAI-style logprobs: the first token is the answer digit, with both digits in top_logprobs."""
    import math

    p1 = 0.05 + 0.9 * ((h >> 8) % 1000) / 1000
    first = text.split()[0] if text.split() else text
    tops = [{"token": "1", "logprob": math.log(p1), "bytes": None},
            {"token": "2", "logprob": math.log(1 - p1), "bytes": None}][: max(top, 1)]
    if first not in ("1", "2"):
        tops = [{"token": first, "logprob": -0.01, "bytes": None}] + tops[: max(top - 1, 0)]
    return {"content": [{"token": first, "logprob": tops[0]["logprob"], "bytes": None, "top_logprobs": tops}],
            "refusal": None}


class FakeServer:
    """The ASGI app. Stats are kept in process; `/stats` reads them, `POST /stats/reset` clears them."""

    def __init__(self, cfg: ServerConfig):
        self.cfg = cfg
        self.attempts: dict[int, int] = {}
        self._slots: asyncio.Semaphore | None = None
        self.reset()

    def reset(self) -> None:
        self.requests = 0
        self.responses = 0
        self.first_request: float | None = None
        self.last_response: float | None = None
        self.by_status: dict[str, int] = {}
        self.by_fault: dict[str, int] = {}
        self.inflight = 0
        self.max_inflight = 0
        self.attempts.clear()
        self.log: list[dict[str, Any]] = []
        self.latency_sum = 0.0  # seconds of latency served (every request, faults included)
        self.seen: dict[int, int] = {}  # call (messages and seed) hash -> requests

    def stats(self) -> dict[str, Any]:
        window = (self.last_response - self.first_request) if self.first_request and self.last_response else 0.0
        return {"requests": self.requests, "responses": self.responses, "first_request": self.first_request,
                "last_response": self.last_response, "window_s": window,
                "requests_per_s": self.responses / window if window > 0 else 0.0, "by_status": self.by_status,
                "by_fault": self.by_fault, "max_inflight": self.max_inflight, "latency_sum_s": self.latency_sum,
                "config": asdict(self.cfg)}

    def latency_of(self, prompt_h: int, attempt: int) -> float:
        """This attempt's latency: drawn from the mix's bands (seeded), else the fixed latency."""
        mix = self.cfg.latency_mix
        if not mix:
            return self.cfg.latency
        u = (_h(self.cfg.seed, "band", prompt_h, attempt) % 1_000_000) / 1_000_000
        v = (_h(self.cfg.seed, "within", prompt_h, attempt) % 1_000_000) / 1_000_000
        acc = 0.0
        for share, lo, hi in mix:
            acc += share
            if u < acc:
                return lo + (hi - lo) * v
        return mix[-1][1] + (mix[-1][2] - mix[-1][1]) * v

    def _fault(self, prompt_h: int) -> str | None:
        if self.cfg.script:
            attempt = self.attempts.get(prompt_h, 0)
            self.attempts[prompt_h] = attempt + 1
            return self.cfg.script[attempt] if attempt < len(self.cfg.script) else None
        f = self.cfg.faults
        if not f:
            return None
        # content faults: a stable property of the prompt
        u = (_h(self.cfg.seed, "content", prompt_h) % 1_000_000) / 1_000_000
        acc = 0.0
        for kind in ("empty", "malformed", "nochoices"):
            acc += f.get(kind, 0.0)
            if u < acc:
                return kind
        attempt = self.attempts.get(prompt_h, 0)
        self.attempts[prompt_h] = attempt + 1
        if attempt >= self.cfg.max_faults:
            return None
        u = (_h(self.cfg.seed, "transport", prompt_h, attempt) % 1_000_000) / 1_000_000
        acc = 0.0
        for kind in TRANSPORT_FAULTS:
            acc += f.get(kind, 0.0)
            if u < acc:
                return kind
        return None

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                msg = await receive()
                if msg["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif msg["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        path, method = scope["path"], scope["method"]
        body = b""
        while True:
            msg = await receive()
            body += msg.get("body", b"")
            if not msg.get("more_body"):
                break
        if path.endswith("/chat/completions") and method == "POST":
            await self._chat(scope, body, send)
        elif path.endswith("/models"):
            await _json(send, 200, {"object": "list", "data": [{"id": self.cfg.model, "object": "model", "owned_by": "fake"}]})
        elif path == "/seen":
            await _json(send, 200, [[f"{h:016x}", n] for h, n in self.seen.items()])
        elif path == "/log":
            await _json(send, 200, self.log)
        elif path == "/stats":
            if method == "POST":
                self.reset()
            await _json(send, 200, self.stats())
        elif path == "/config" and method == "POST":
            # change behaviour mid-test (e.g. start rejecting the key): fields of ServerConfig
            for k, v in json.loads(body or b"{}").items():
                setattr(self.cfg, k, v)
            await _json(send, 200, asdict(self.cfg))
        else:
            await _json(send, 404, {"error": {"message": f"no route {path}", "type": "not_found"}})

    async def _chat(self, scope, body: bytes, send) -> None:
        now = time.time()
        if self.cfg.record:
            self.log.append({"t": now, "path": scope["path"], "query": scope["query_string"].decode("latin-1"),
                             "headers": {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]},
                             "body": body.decode("utf-8", "replace")})
        self.requests += 1
        if self.first_request is None:
            self.first_request = now
        self.inflight += 1
        self.max_inflight = max(self.max_inflight, self.inflight)
        status = "drop"
        try:
            status = await self._answer(scope, body, send)
        finally:
            self.inflight -= 1
            self.by_status[status] = self.by_status.get(status, 0) + 1
            if status == "200":
                self.responses += 1
                self.last_response = time.time()

    async def _answer(self, scope, body: bytes, send) -> str:
        cfg = self.cfg
        if cfg.api_key is not None:
            auth = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
            got = auth[7:] if auth.startswith("Bearer ") else auth
            if got != cfg.api_key:
                shown = got if cfg.echo_key else (got[:3] + "*" * 8 + got[-4:] if len(got) > 8 else "***")
                await _json(send, 401, {"error": {"message": f"Incorrect API key provided: {shown}.",
                                                  "type": "invalid_request_error", "code": "invalid_api_key"}})
                return "401"
        try:
            req = json.loads(body)
            messages = req["messages"]
        except (ValueError, KeyError, TypeError):
            await _json(send, 400, {"error": {"message": "body must be JSON with 'messages'", "type": "invalid_request_error"}})
            return "400"
        prompt_h = _h(json.dumps(messages, sort_keys=True, ensure_ascii=False))
        # one call is its messages and its seed (two jobs may ask the same question with different seeds)
        call_h = _h(prompt_h, req.get("seed"))
        attempt = self.seen.get(call_h, 0)
        if cfg.track or cfg.latency_mix:
            self.seen[call_h] = attempt + 1
        fault = self._fault(prompt_h)
        if fault:
            self.by_fault[fault] = self.by_fault.get(fault, 0) + 1
        if fault == "hang":
            await asyncio.sleep(cfg.hang_s)  # the client should have given up by now
            await _json(send, 504, {"error": {"message": "injected hang", "type": "timeout"}})
            return "hang"
        latency = self.latency_of(prompt_h, attempt)
        if latency:
            self.latency_sum += latency
            if cfg.slots > 0:  # the server computes `slots` answers at once; the rest wait
                if self._slots is None:
                    self._slots = asyncio.Semaphore(cfg.slots)
                async with self._slots:
                    await asyncio.sleep(latency)
            else:
                await asyncio.sleep(latency)
        if fault == "500":
            await _json(send, 500, {"error": {"message": "injected server error", "type": "server_error"}})
            return "500"
        if fault and fault.startswith("status:"):  # scripted only: any status, e.g. "status:413"
            code = int(fault.split(":", 1)[1])
            await _json(send, code, {"error": {"message": f"injected status {code}", "type": "injected"}})
            return str(code)
        if fault == "429":
            await _json(send, 429, {"error": {"message": "injected rate limit", "type": "rate_limit_error"}},
                        [(b"retry-after", str(cfg.retry_after).encode()),
                         (b"retry-after-ms", str(int(cfg.retry_after * 1000)).encode())])
            return "429"
        if fault == "drop":
            # promise more bytes than we send: the server closes the connection mid-response
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json"), (b"content-length", b"1000")]})
            await send({"type": "http.response.body", "body": b'{"id": "chatcmpl-', "more_body": True})
            raise ConnectionAbortedError("injected dropped connection")
        if fault == "badjson":
            await _raw(send, 200, b'{"id": "chatcmpl-x", "object": "chat.completion", "choices": [{"ind')
            return "200-badjson"
        n = int(req.get("n") or 1)
        texts = []
        for i in range(n):
            if fault == "empty":
                texts.append("")
            elif fault == "malformed":
                texts.append("Hmm, both answers look plausible to me.")
            else:
                texts.append(canned_reply(messages, i, cfg.seed))
        want_lp = bool(req.get("logprobs"))
        top = int(req.get("top_logprobs") or 0)
        choices = []
        if fault == "nochoices":
            texts = []
        for i, t in enumerate(texts):
            c = {"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop", "logprobs": None}
            if want_lp:
                c["logprobs"] = _logprobs_block(t, _h(prompt_h, i), top)
            choices.append(c)
        ptoks = len(body) // 4
        ctoks = sum(len(t) // 4 + 1 for t in texts)
        if cfg.usage is not None:
            ptoks, ctoks = cfg.usage
        await _json(send, 200, {
            "id": f"chatcmpl-{prompt_h:x}", "object": "chat.completion", "created": int(time.time()),
            "model": req.get("model", cfg.model), "choices": choices,
            "usage": {"prompt_tokens": ptoks, "completion_tokens": ctoks, "total_tokens": ptoks + ctoks},
        })
        return "200"


async def _raw(send, status: int, payload: bytes, extra: list | None = None) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers + (extra or [])})
    await send({"type": "http.response.body", "body": payload})


async def _json(send, status: int, obj: Any, extra: list | None = None) -> None:
    await _raw(send, status, json.dumps(obj, separators=(",", ":")).encode(), extra)


def serve(cfg: ServerConfig, host: str = "127.0.0.1", port: int = 0, announce=None) -> None:
    """Serve forever in this process (uvloop and httptools when installed)."""
    import uvicorn

    try:
        import uvloop  # noqa: F401
        loop = "uvloop"
    except ImportError:
        loop = "asyncio"
    try:
        import httptools  # noqa: F401
        http = "httptools"
    except ImportError:
        http = "h11"
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(4096)
    config = uvicorn.Config(FakeServer(cfg), loop=loop, http=http, log_level="critical", access_log=False,
                            lifespan="off", backlog=4096, timeout_keep_alive=120, timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    if announce:
        announce(sock.getsockname()[1], loop, http)
    server.run(sockets=[sock])


class ServerHandle:
    """A fake server running in a child process; a context manager that stops it."""

    def __init__(self, proc: subprocess.Popen, port: int, info: str):
        self.proc, self.port, self.info = proc, port, info
        self.base = f"http://127.0.0.1:{port}"
        self.url = self.base + "/v1"

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.base + "/stats", timeout=10) as r:
            return json.loads(r.read())

    def requests_log(self) -> list[dict[str, Any]]:
        """The chat requests received since the last reset (with `record=True`)."""
        with urllib.request.urlopen(self.base + "/log", timeout=10) as r:
            return json.loads(r.read())

    def reset(self) -> dict[str, Any]:
        req = urllib.request.Request(self.base + "/stats", data=b"", method="POST")
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def configure(self, **changes: Any) -> dict[str, Any]:
        """Change ServerConfig fields of the running server (faults, api_key, latency, ...)."""
        req = urllib.request.Request(self.base + "/config", data=json.dumps(changes).encode(), method="POST")
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> "ServerHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def start_server(cfg: ServerConfig | None = None, *, port: int = 0, python: str = sys.executable,
                 timeout: float = 30.0, **kw: Any) -> ServerHandle:
    """Start the server in its own process on a free loopback port and wait until it answers."""
    cfg = cfg or ServerConfig(**kw)
    cmd = [python, os.path.abspath(__file__), "--port", str(port), "--config-json", json.dumps(asdict(cfg))]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    line = proc.stdout.readline()  # "PORT <n> <loop> <http>"
    if not line.startswith("PORT "):
        proc.kill()
        raise RuntimeError(f"fake server did not start: {line!r}")
    _, p, loop, http = line.split()
    handle = ServerHandle(proc, int(p), f"{loop}/{http}")
    deadline = time.monotonic() + timeout
    while True:
        try:
            handle.stats()
            return handle
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                handle.stop()
                raise RuntimeError("fake server did not answer") from None
            time.sleep(0.02)


def _parse_faults(text: str) -> dict[str, float]:
    out = {}
    for part in filter(None, text.split(",")):
        k, v = part.split("=")
        if k not in FAULT_KINDS:
            raise SystemExit(f"unknown fault {k!r}; expected one of {', '.join(FAULT_KINDS)}")
        out[k] = float(v)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--latency", type=float, default=0.0, help="seconds per answer")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--faults", default="", help="e.g. 500=0.05,429=0.05,hang=0.01,drop=0.02,empty=0.02")
    ap.add_argument("--max-faults", type=int, default=2)
    ap.add_argument("--hang-s", type=float, default=30.0)
    ap.add_argument("--latency-mix", choices=["realistic"], default=None,
                    help="draw each answer's latency from REALISTIC_MIX (and add REALISTIC_FAULTS unless --faults)")
    ap.add_argument("--api-key", default=None)
    ap.add_argument("--config-json", default=None, help="a whole ServerConfig as JSON (start_server uses it)")
    a = ap.parse_args(argv)
    if a.config_json:
        cfg = ServerConfig(**json.loads(a.config_json))
    else:
        cfg = ServerConfig(latency=a.latency, seed=a.seed, faults=_parse_faults(a.faults), max_faults=a.max_faults,
                           hang_s=a.hang_s, api_key=a.api_key)
        if a.latency_mix == "realistic":
            cfg.latency_mix = REALISTIC_MIX
            cfg.faults = cfg.faults or dict(REALISTIC_FAULTS)
            cfg.retry_after = 1.0
    if a.host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("the fake server listens on loopback only")

    def announce(port, loop, http):
        print(f"PORT {port} {loop} {http}", flush=True)

    serve(cfg, a.host, a.port, announce)


if __name__ == "__main__":
    main()
