"""http1, the `openai:` backend's client for plain-http servers, against a loopback server that
answers with scripted raw bytes: keep-alive reuse, a connection the server dropped while idle,
chunked, close-delimited and gzip bodies, garbage, and a port nobody listens on."""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
import zlib

import pytest

from model_adapters.http1 import Client, ConnectionLost, Unsupported
from oversight_bench.errors import BenchError
from model_adapters.openai_api import OpenAIModel
from oversight_bench.models import parse_spec

OK = json.dumps({"choices": [{"index": 0, "message": {"content": "Answer: 1"}}],
                 "usage": {"prompt_tokens": 3, "completion_tokens": 2}}).encode()


def _http(body: bytes, *, extra: str = "", length: bool = True, version: str = "1.1") -> bytes:
    head = f"HTTP/{version} 200 OK\r\nContent-Type: application/json\r\n{extra}"
    if length:
        head += f"Content-Length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body


async def _serve(script):
    """A server that reads each request and writes `script(conn_no, req_no, body)`: bytes to
    send, or None to close the connection without answering. Returns (server, url, log)."""
    log = []

    async def handle(reader, writer):
        conn = len({c for c, _ in log})
        req = 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                n = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
                body = await reader.readexactly(n)
                log.append((conn, head))
                out = script(conn, req, body)
                req += 1
                if out is None:
                    break
                writer.write(out)
                await writer.drain()
                if b"Connection: close" in out or b"HTTP/1.0" in out:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1/chat/completions", log


def _run(script, n=1, timeout=5.0, burst=0):
    """`burst` requests at once (leaving that many idle connections), then `n` one by one."""
    async def main():
        server, url, log = await _serve(script)
        client = Client(url, {"Authorization": "Bearer sk-x"}, timeout)
        try:
            await asyncio.gather(*(client.post(b'{"q": 0}') for _ in range(burst)))
            return [await client.post(b'{"q": 1}') for _ in range(n)], log
        finally:
            client.close()
            server.close()

    return asyncio.run(main())


def test_requests_reuse_one_keep_alive_connection():
    resps, log = _run(lambda c, r, body: _http(OK), n=5)
    assert [r.status for r in resps] == [200] * 5 and resps[0].body == OK
    assert {c for c, _ in log} == {0}  # one connection for all five
    head = log[0][1].decode()
    assert head.startswith("POST /v1/chat/completions HTTP/1.1\r\n") and "Authorization: Bearer sk-x" in head
    assert "Content-Length: 8" in head


def test_a_connection_dropped_while_idle_is_replaced_silently():
    # the server closes each connection on its second request without a byte of answer
    resps, log = _run(lambda c, r, body: _http(OK) if r == 0 else None, n=3)
    assert [r.body for r in resps] == [OK] * 3
    assert [c for c, _ in log] == [0, 0, 1, 1, 2]
    # with three idle connections, all dropped: one stale attempt, then a fresh connection
    resps, log = _run(lambda c, r, body: _http(OK) if r == 0 else None, n=1, burst=3)
    assert resps[0].body == OK and len(log) == 3 + 2


def test_interim_1xx_answers_are_skipped():
    resps, log = _run(lambda c, r, body: b"HTTP/1.1 100 Continue\r\n\r\n" + _http(body), n=3)
    assert [(r.status, r.body) for r in resps] == [(200, b'{"q": 1}')] * 3 and len({c for c, _ in log}) == 1


def test_chunked_close_delimited_and_gzip_bodies():
    chunked = _http(b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", extra="Transfer-Encoding: chunked\r\n", length=False)
    resps, _ = _run(lambda c, r, body: chunked)
    assert resps[0].body == b"hello world" and resps[0].headers["transfer-encoding"] == "chunked"
    resps, _ = _run(lambda c, r, body: _http(OK, length=False, version="1.0"))
    assert resps[0].body == OK
    resps, _ = _run(lambda c, r, body: _http(gzip.compress(OK), extra="Content-Encoding: gzip\r\n"))
    assert resps[0].body == OK
    raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    resps, _ = _run(lambda c, r, body: _http(raw.compress(OK) + raw.flush(), extra="Content-Encoding: Deflate\r\n"))
    assert resps[0].body == OK


def test_broken_answers_raise_connection_lost():
    with pytest.raises(ConnectionLost, match="malformed HTTP response"):
        _run(lambda c, r, body: b"NOT HTTP AT ALL\r\n\r\n")
    with pytest.raises(ConnectionLost, match="closed the connection"):  # promised 100 bytes, sent 5
        _run(lambda c, r, body: b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 100\r\n\r\nhello")
    with pytest.raises(ConnectionLost, match="closed the connection"):  # a cut-off chunked body
        _run(lambda c, r, body: b"HTTP/1.1 200 OK\r\nConnection: close\r\nTransfer-Encoding: Chunked\r\n\r\n5\r\nhel")
    with pytest.raises(Unsupported, match="br-encoded"):
        _run(lambda c, r, body: _http(OK, extra="Content-Encoding: br\r\n"))


def test_the_backend_uses_http1_for_plain_http_only(monkeypatch):
    for var in ("HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(var, raising=False)
    assert OpenAIModel(parse_spec("openai:m,base_url=http://127.0.0.1:9/v1")).lean_http
    assert not OpenAIModel(parse_spec("openai:m,base_url=https://example.org/v1,api_key=k")).lean_http
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    assert not OpenAIModel(parse_spec("openai:m,base_url=http://10.0.0.5:8000/v1")).lean_http


def test_the_backend_strips_the_key_and_refuses_a_broken_one(monkeypatch):
    key = "sk-test-abcdef123456"
    monkeypatch.setenv("KEY_FROM_FILE", key + "\n")
    m = OpenAIModel(parse_spec("openai:m,base_url=http://127.0.0.1:9/v1,api_key_env=KEY_FROM_FILE"))
    assert m._api_key == key
    monkeypatch.setenv("KEY_FROM_FILE", key + "\x07x")
    with pytest.raises(BenchError, match="control or non-ASCII") as err:
        OpenAIModel(parse_spec("openai:m,base_url=http://127.0.0.1:9/v1,api_key_env=KEY_FROM_FILE"))
    assert key not in str(err.value)
    with pytest.raises(ValueError, match="line break"):
        Client("http://127.0.0.1:9/v1/chat/completions", {"Authorization": "Bearer a\r\nX: y"}, 5)


def test_the_backend_reports_an_unreachable_server_and_a_garbled_one():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    model = OpenAIModel(parse_spec(f"openai:m,base_url=http://127.0.0.1:{port}/v1,max_retries=0"))
    with pytest.raises(RuntimeError, match=rf"cannot reach http://127.0.0.1:{port}/v1"):
        asyncio.run(model.generate([{"role": "user", "content": "q"}]))

    async def garbled_then_ok():
        server, url, _ = await _serve(lambda c, r, body: b"garbage\r\n\r\n" if c == 0 else _http(OK))
        m = OpenAIModel(parse_spec(f"openai:m,base_url={url.removesuffix('/chat/completions')},max_retries=1"))
        try:
            return m, await m.generate([{"role": "user", "content": "q"}])
        finally:
            await m.aclose()
            server.close()

    m, outs = asyncio.run(garbled_then_ok())
    assert outs[0].text == "Answer: 1" and m.retries == 1
