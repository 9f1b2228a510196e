"""The openai adapter against a real HTTP server on loopback that fails before it answers:
429 (with Retry-After), 500, timeouts, dropped connections and cut-off bodies are re-sent,
counted in `model.retries`; a server that never recovers gives a one-line error without the
API key."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from oversight_bench.errors import BenchError
from oversight_bench.models import parse_spec
from model_adapters.openai_api import OpenAIModel

KEY = "sk-retry-test-SECRET-42"
OK = {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
      "choices": [{"index": 0, "message": {"role": "assistant", "content": "Answer: 2"}, "finish_reason": "stop"}],
      "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}}


class Server:
    """Answers POSTs with the scripted (status, headers, delay) steps, then 200 with OK."""

    def __init__(self, steps):
        self.steps = list(steps)
        self.attempts = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                outer.attempts.append((time.monotonic(), self.headers.get("authorization"), json.loads(body)))
                status, headers, delay = outer.steps.pop(0) if outer.steps else (200, {}, 0)
                if delay:
                    time.sleep(delay)
                if status == "drop":  # close the connection without an answer
                    self.close_connection = True
                    return
                if status == "cut":  # a 200 whose body stops mid-JSON
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", "20")
                    self.end_headers()
                    self.wfile.write(b'{"id": "c", "choices')
                    return
                payload = json.dumps(OK if status == 200 else {"error": {"message": f"failure {status}", "type": "server_error"}}).encode()
                try:
                    self.send_response(status)
                    for k, v in {"content-type": "application/json", **headers}.items():
                        self.send_header(k, v)
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up on this attempt (timeout)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(params=["http1", "aiohttp"])
def transport(request):
    """Both HTTP clients of the backend: http1 (plain http, no proxy) and aiohttp (https, proxies)."""
    return request.param


def _model(transport, url, extra=""):
    model = OpenAIModel(parse_spec(f"openai:m,base_url={url},api_key={KEY},max_retries=3,timeout=5{extra}"))
    model.lean_http = transport == "http1"
    return model


async def _generate(model):
    try:
        return await model.generate([{"role": "user", "content": "q"}], max_tokens=5)
    finally:
        await model.aclose()


def test_429_and_500_are_retried_then_answered(transport):
    steps = [(429, {"retry-after": "0.2"}, 0), (500, {"retry-after-ms": "50"}, 0)]
    with Server(steps) as srv:
        model = _model(transport, srv.url)
        outs = asyncio.run(_generate(model))
    assert [o.text for o in outs] == ["Answer: 2"] and outs[0].prompt_tokens == 5
    assert len(srv.attempts) == 3 and model.retries == 2
    assert srv.attempts[1][0] - srv.attempts[0][0] >= 0.18  # Retry-After was honoured
    assert all(a[1] == f"Bearer {KEY}" for a in srv.attempts)
    assert srv.attempts[0][2] == srv.attempts[2][2]  # the same request was re-sent


def test_timeout_is_retried(transport):
    with Server([(200, {}, 1.5)]) as srv:
        model = _model(transport, srv.url, ",timeout=0.5")
        outs = asyncio.run(_generate(model))
    assert outs[0].text == "Answer: 2" and len(srv.attempts) == 2 and model.retries == 1


def test_server_that_never_recovers_gives_a_clean_error(transport):
    with Server([(503, {"retry-after-ms": "10"}, 0)] * 10) as srv:
        model = _model(transport, srv.url, ",max_retries=2")
        with pytest.raises(RuntimeError) as err:
            asyncio.run(_generate(model))
    assert len(srv.attempts) == 3 and model.retries == 2
    assert "\n" not in str(err.value) and KEY not in str(err.value) and "InternalServerError" in str(err.value)


def test_dropped_connection_and_cut_off_body_are_retried(transport):
    with Server([("drop", {}, 0), ("cut", {}, 0)]) as srv:
        model = _model(transport, srv.url)
        outs = asyncio.run(_generate(model))
    assert outs[0].text == "Answer: 2" and len(srv.attempts) == 3 and model.retries == 2


def test_retry_after_forms():
    from email.utils import formatdate

    from model_adapters.openai_api import retry_after

    assert retry_after({"retry-after-ms": "250"}) == 0.25
    assert retry_after({"retry-after": "2"}) == 2.0
    assert 3 <= retry_after({"retry-after": formatdate(time.time() + 5, usegmt=True)}) <= 5
    assert retry_after({"retry-after": "600"}) is None  # longer than a minute: back off instead
    assert retry_after({"retry-after": "0"}) is None  # "now" means the backoff, as in the openai client
    assert retry_after({"retry-after": "soon"}) is None and retry_after({}) is None


def test_client_errors_are_not_retried(transport):
    with Server([(404, {}, 0)]) as srv:
        model = _model(transport, srv.url)
        with pytest.raises(BenchError, match="NotFoundError: HTTP 404: failure 404"):
            asyncio.run(_generate(model))
    assert len(srv.attempts) == 1 and model.retries == 0


def test_other_client_errors_fail_the_call_not_the_run(transport):
    """A 413 or 422 is about this request (say, one long article): the job fails, the run goes on."""
    with Server([(413, {}, 0)]) as srv:
        model = _model(transport, srv.url)
        with pytest.raises(RuntimeError, match="HTTP 413") as err:
            asyncio.run(_generate(model))
    assert not isinstance(err.value, BenchError) and len(srv.attempts) == 1
