"""A lean keep-alive HTTP/1.1 client for OpenAI-compatible servers reached over plain http.

Local servers (vLLM, llama.cpp, Ollama, the benchmark's fake server) are where a judge run is
CPU-bound on the client: at 256 calls in flight on a 2-core machine, aiohttp's 0.3–0.4 ms of CPU
per request held a run to about 0.88 of the C/L limit. Here a request is one pre-built header
block written to an asyncio transport and the answer is parsed by httptools (uvicorn's parser),
0.1–0.2 ms per request in the same measurement (benchmarks/README.md). TLS and proxies, where
the network dominates and HTTP's corners matter, stay on aiohttp (`openai_api.OpenAIModel`
picks).

One request at a time per connection; idle connections are reused last-in first-out. A reused
connection that the server closed while idle (nothing received) is replaced once, silently, as
aiohttp and urllib3 do; every other failure is the caller's to retry.
"""

from __future__ import annotations

import asyncio
import zlib
from dataclasses import dataclass
from urllib.parse import urlsplit


class ConnectionLost(Exception):
    """The connection closed or sent unparseable bytes before a whole response arrived."""

    def __init__(self, reason: str, received: bool):
        super().__init__(reason)
        self.received = received  # any byte of a response arrived (so the request was not stale)


class Unsupported(Exception):
    """A whole response this client cannot read (an unknown content encoding): re-sending won't help."""


@dataclass(slots=True)
class Response:
    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes


class _Connection(asyncio.Protocol):
    """One keep-alive connection: `request()` writes a request and returns the answer's future."""

    def __init__(self) -> None:
        import httptools

        self._parser = httptools.HttpResponseParser(self)
        self._errors = httptools.HttpParserError
        self.transport: asyncio.Transport | None = None
        self.waiter: asyncio.Future | None = None
        self.lost = False
        self.keep_alive = False
        self._reset()

    def _reset(self) -> None:
        self.received = False
        self.headers_done = False
        self.headers: dict[str, str] = {}
        self.chunks: list[bytes] = []

    def request(self, data: bytes) -> asyncio.Future:
        self._reset()
        self.waiter = asyncio.get_running_loop().create_future()
        if self.lost or self.transport.is_closing():  # the server's close is on its way to connection_lost
            self._finish(exc=ConnectionLost("the server closed the connection", False))
        else:
            self.transport.write(data)
        return self.waiter

    def close(self) -> None:
        self.lost = True
        if self.transport is not None:
            self.transport.close()

    # -- asyncio.Protocol
    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self.waiter is None:  # bytes nobody asked for: the connection's state is unknown
            self.close()
            return
        self.received = True
        try:
            self._parser.feed_data(data)
        except self._errors as exc:
            self._finish(exc=ConnectionLost(f"malformed HTTP response ({exc})", True))
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        if (exc is None and self.headers_done and "content-length" not in self.headers
                and "chunked" not in self.headers.get("transfer-encoding", "").lower()):
            self._finish(self._response())  # an HTTP/1.0-style body that ends with the connection
        else:
            self._finish(exc=ConnectionLost("the server closed the connection" + (f" ({exc})" if exc else ""),
                                            self.received))

    # -- httptools callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        self.headers_done = True

    def on_body(self, body: bytes) -> None:
        self.chunks.append(body)

    def on_message_complete(self) -> None:
        if 100 <= self._parser.get_status_code() < 200:  # 100 Continue, 103 Early Hints: the answer follows
            self._reset()
            self.received = True
            return
        self.keep_alive = self._parser.should_keep_alive()
        self._finish(self._response())

    def _response(self) -> Response:
        return Response(self._parser.get_status_code(), self.headers, b"".join(self.chunks))

    def _finish(self, result: Response | None = None, exc: Exception | None = None) -> None:
        waiter, self.waiter = self.waiter, None
        if waiter is None or waiter.done():
            return
        if exc is not None:
            waiter.set_exception(exc)
        else:
            waiter.set_result(result)


class Client:
    """POSTs to one http:// URL over keep-alive connections, within one event loop."""

    def __init__(self, url: str, headers: dict[str, str], timeout: float):
        parts = urlsplit(url)
        if parts.scheme != "http":
            raise ValueError(f"http1.Client speaks plain http only, not {parts.scheme!r}")
        self.host = parts.hostname or "localhost"
        self.port = parts.port or 80
        self.timeout = timeout
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        if any(c in "\r\n" for v in headers.values() for c in v):
            raise ValueError("an HTTP header value contains a line break")
        host = f"[{self.host}]" if ":" in self.host else self.host
        lines = [f"POST {target} HTTP/1.1", f"Host: {host}:{self.port}", "Accept-Encoding: identity",
                 *(f"{k}: {v}" for k, v in headers.items()), "Content-Length: "]
        self._head = "\r\n".join(lines).encode("latin-1")
        self._idle: list[_Connection] = []

    async def post(self, payload: bytes) -> Response:
        """The server's response; TimeoutError after `timeout` s; OSError if it can't be reached;
        ConnectionLost if the connection broke before a whole response."""
        data = b"%s%d\r\n\r\n%s" % (self._head, len(payload), payload)
        async with asyncio.timeout(self.timeout):
            while self._idle:
                conn = self._idle.pop()
                if conn.lost:
                    continue
                try:
                    return await self._exchange(conn, data)
                except ConnectionLost as exc:
                    if exc.received:
                        raise
                    break  # closed by the server while idle: once, on a fresh connection
            _, conn = await asyncio.get_running_loop().create_connection(_Connection, self.host, self.port)
            return await self._exchange(conn, data)

    async def _exchange(self, conn: _Connection, data: bytes) -> Response:
        try:
            resp = await conn.request(data)
        except BaseException:  # timeout, cancellation, a broken connection: never reuse it
            conn.close()
            raise
        if conn.keep_alive and not conn.lost and not conn.transport.get_write_buffer_size():
            self._idle.append(conn)
        else:
            conn.close()
        encoding = resp.headers.get("content-encoding", "identity").strip().lower()
        if encoding in ("gzip", "deflate"):  # asked for identity, but some servers compress anyway
            try:
                # gzip; deflate in a zlib wrapper (RFC 9110), or raw as some servers send it
                resp.body = zlib.decompressobj(16 + zlib.MAX_WBITS if encoding == "gzip" else 32 + zlib.MAX_WBITS).decompress(resp.body)
            except zlib.error:
                try:
                    resp.body = zlib.decompress(resp.body, -zlib.MAX_WBITS)
                except zlib.error as exc:
                    raise ConnectionLost(f"the {encoding} body does not decompress ({exc})", True) from None
        elif encoding != "identity":
            raise Unsupported(f"the response is {encoding}-encoded; expected identity, gzip or deflate")
        return resp

    def close(self) -> None:
        for conn in self._idle:
            conn.close()
        self._idle.clear()
