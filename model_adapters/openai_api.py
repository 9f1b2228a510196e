"""`openai:` — any OpenAI-compatible chat endpoint.

`openai:MODEL[,base_url=URL,api_key_env=VAR,api_key=KEY,timeout=60,max_retries=5,concurrency=8,
logprobs=true,images=true,prefill=true,max_tokens_field=max_completion_tokens]`

Covers OpenAI itself and vLLM, llama.cpp, Ollama or LiteLLM servers. Why not the official
`openai` client: it spends 2–3 ms of CPU per request (pydantic models, httpx, anyio), which caps
a 2-core machine at about 400 requests/s. A plain-http base URL with no proxy (a local server,
where the client's CPU is the limit) goes through `http1`, a keep-alive HTTP/1.1 client on
httptools (0.1–0.2 ms of CPU per request); https and proxies go through aiohttp (0.3–0.4 ms;
see benchmarks/README.md). The retry policy is the client's: 408/409/429/5xx, timeouts, dropped
connections and cut-off bodies are re-sent up to `max_retries` times after `Retry-After(-ms)`
(≤ 60 s) or an exponential backoff (0.5 s doubling to 8 s, 25% jitter). Every re-send is
reported to the runner (`note_retry`: the call's `attempts` and the progress display) and
counted in `model.retries`. The API key comes from `api_key`, `$api_key_env` or
`$OPENAI_API_KEY` and is kept out of the name, the cache fingerprint and every error message.

Judge probabilities (`logprobs=true`): a short greedy generation with `top_logprobs=20`; P("1")
and P("2") are read at the first generated position that follows the prefix ("Answer: "), so
it works whether the model writes "Answer: 1" itself or (`prefill=true`, for servers that
continue a final assistant message) starts right after a prefilled "Answer: ".
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
import os
import random
import re
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import orjson

from model_adapters import http1
from oversight_bench.errors import BenchError
from oversight_bench.models import Capabilities, Completion, Model, Spec
from oversight_bench.runner import note_retry

OPTIONS = {"base_url", "api_key_env", "api_key", "timeout", "max_retries", "concurrency", "logprobs",
           "images", "prefill", "max_tokens_field", "top_logprobs"}
_KEY_PATTERN = re.compile(r"\b(sk-[A-Za-z0-9_\-]{6,}|Bearer\s+\S+)")
#: the openai client's names for HTTP errors, so messages read the same as with it
_ERROR_NAMES = {400: "BadRequestError", 401: "AuthenticationError", 403: "PermissionDeniedError",
                404: "NotFoundError", 408: "RequestTimeout", 409: "ConflictError",
                422: "UnprocessableEntityError", 429: "RateLimitError"}
_RETRY_STATUS = {408, 409, 429}
_FATAL_STATUS = {400, 401, 403, 404}


def clean_url(url: str) -> str:
    """A base URL without credentials or query, for names and fingerprints."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def retry_after(headers) -> float | None:
    """Seconds the server asked to wait (`retry-after-ms`, `retry-after` seconds or date), if in
    (0, 60]; otherwise the backoff applies, as in the openai client."""
    try:
        if "retry-after-ms" in headers:
            wait = float(headers["retry-after-ms"]) / 1000
        elif "retry-after" in headers:
            value = headers["retry-after"]
            try:
                wait = float(value)
            except ValueError:
                wait = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        else:
            return None
    except (TypeError, ValueError):
        return None
    return wait if 0 < wait <= 60 else None


def env_proxy(url: str) -> str | None:
    """The proxy HTTP(S)_PROXY / NO_PROXY name for `url`, looked up once (aiohttp's `trust_env`
    would look it up in a thread on every request)."""
    import urllib.request

    parts = urlsplit(url)
    if urllib.request.proxy_bypass_environment(parts.hostname or ""):
        return None
    return urllib.request.getproxies_environment().get(parts.scheme)


def backoff(attempt: int) -> float:
    """The openai client's backoff before re-send number `attempt + 1`."""
    return min(0.5 * 2 ** attempt, 8.0) * (1 - 0.25 * random.random())


def _error_text(status: int, raw: bytes) -> str:
    try:
        err = json.loads(raw).get("error")
        msg = err.get("message") if isinstance(err, dict) else err
    except (ValueError, AttributeError):
        msg = None
    name = _ERROR_NAMES.get(status, "InternalServerError" if status >= 500 else "APIStatusError")
    detail = str(msg) if msg else raw[:200].decode("utf-8", "replace").strip() or "no body"
    return f"{name}: HTTP {status}: {' '.join(detail.split())}"


class _Retry(Exception):
    """A transient failure: re-send after `wait` seconds (None: backoff)."""

    def __init__(self, reason: str, wait: float | None = None):
        super().__init__(reason)
        self.wait = wait


class OpenAIModel(Model):
    max_concurrency = 8

    def __init__(self, spec: Spec):
        super().__init__(spec)
        o = spec.options
        unknown = set(o) - OPTIONS
        if unknown:
            raise BenchError(f"openai model: unknown option(s) {', '.join(sorted(unknown))}; expected {', '.join(sorted(OPTIONS))}")
        key_env = str(o.get("api_key_env", "OPENAI_API_KEY"))
        api_key = o.get("api_key") or os.environ.get(key_env)
        self.base_url = str(o.get("base_url") or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1")
        if urlsplit(self.base_url).scheme not in ("http", "https"):
            raise BenchError(f"openai model {spec.model!r}: base_url {clean_url(self.base_url)!r} is not an http(s) URL; expected e.g. http://127.0.0.1:8000/v1")
        if not api_key:
            if "api.openai.com" in self.base_url:
                raise BenchError(f"openai model {spec.model!r}: no API key; set ${key_env} or pass api_key_env=VAR")
            api_key = "none"  # local servers (llama.cpp, vLLM, Ollama) accept any key
        self._api_key = str(api_key).strip()  # a key read from a file often ends in a newline
        if not self._api_key.isprintable() or not self._api_key.isascii():
            raise BenchError(f"openai model {spec.model!r}: the API key holds a control or non-ASCII character; expected the key alone, as the provider shows it")
        self.timeout = float(o.get("timeout", 120))
        self.max_retries = int(o.get("max_retries", 5))
        self.max_concurrency = int(o.get("concurrency", 8))
        self.prefill = bool(o.get("prefill", False))
        self.top_logprobs = int(o.get("top_logprobs", 20))
        self.max_tokens_field = str(o.get("max_tokens_field", "max_tokens"))
        self.capabilities = Capabilities(images=bool(o.get("images", False)), logprobs=bool(o.get("logprobs", False)),
                                         multi_sample=True)
        self.retries = 0  # requests re-sent after 429/5xx/timeouts/dropped connections
        self._url = self.base_url.rstrip("/") + "/chat/completions"
        self._fingerprint = {"model": f"openai:{spec.model}", "base_url": clean_url(self.base_url)}
        self._proxy = env_proxy(self._url)
        #: plain http and no proxy: the lean client (http1); otherwise aiohttp
        self.lean_http = urlsplit(self._url).scheme == "http" and self._proxy is None
        self._headers = {"Authorization": f"Bearer {self._api_key}", "Content-Type": "application/json",
                         "User-Agent": "oversight-bench"}
        self._client = None  # http1.Client or aiohttp.ClientSession, for the loop below
        self._client_loop = None

    def request_fingerprint(self) -> dict[str, Any]:
        return self._fingerprint

    def redact(self, text: str) -> str:
        if self._api_key and self._api_key != "none":
            text = text.replace(self._api_key, "***")
        return _KEY_PATTERN.sub("***", text)

    # -- HTTP -------------------------------------------------------------------------------------
    def _http(self):
        """The client of the running event loop (one per loop: tests and CLI commands run several)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            if self.lean_http:
                self._client = http1.Client(self._url, self._headers, self.timeout)
            else:
                import aiohttp

                self._client = aiohttp.ClientSession(
                    connector=aiohttp.TCPConnector(limit=0),  # the runner bounds calls in flight; a pool limit
                    # would let calls queue for a connection inside their own timeout
                    timeout=aiohttp.ClientTimeout(total=self.timeout), headers=self._headers)
            self._client_loop = loop
        return self._client

    async def _post(self, payload: bytes):
        """(status, headers, body) of one POST; _Retry on timeouts and broken connections."""
        if self.lean_http:
            try:
                r = await self._http().post(payload)
            except TimeoutError:
                raise _Retry(f"APITimeoutError: no answer within {self.timeout:g} s") from None
            except http1.ConnectionLost as exc:
                raise _Retry(f"APIConnectionError: {exc}") from None
            except http1.Unsupported as exc:
                raise RuntimeError(f"{self.name}: {exc}") from None
            except OSError as exc:  # refused, unknown host: before any byte was sent
                raise _Retry(f"APIConnectionError: cannot reach {clean_url(self.base_url)} ({exc})") from None
            return r.status, r.headers, r.body
        import aiohttp

        try:
            async with self._http().post(self._url, data=payload, proxy=self._proxy) as r:
                return r.status, r.headers, await r.read()
        except asyncio.TimeoutError:
            raise _Retry(f"APITimeoutError: no answer within {self.timeout:g} s") from None
        except aiohttp.ClientConnectorError as exc:
            raise _Retry(f"APIConnectionError: cannot reach {clean_url(self.base_url)} ({exc.os_error or exc})") from None
        except aiohttp.ClientError as exc:
            raise _Retry(f"APIConnectionError: {type(exc).__name__}: {exc}") from None

    async def _send(self, payload: bytes) -> dict:
        """One attempt: the decoded completion, or _Retry / BenchError / RuntimeError."""
        status, headers, raw = await self._post(payload)
        if status != 200:
            text = _error_text(status, raw)
            if status in _RETRY_STATUS or status >= 500:
                raise _Retry(text, retry_after(headers))
            if status in _FATAL_STATUS:  # a wrong key, model or URL: every call would get it
                raise BenchError(f"{self.name}: {self.redact(text)}")
            raise RuntimeError(f"{self.name}: {self.redact(text)}")  # this request only (e.g. 413, 422)
        try:
            data = orjson.loads(raw)
        except ValueError:  # orjson.JSONDecodeError is one; json also takes lone surrogate escapes
            try:
                data = json.loads(raw)
            except ValueError:
                raise _Retry(f"APIResponseValidationError: the body is not JSON ({len(raw)} bytes, cut off?)") from None
        if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
            raise BenchError(f"{self.name}: the server's answer has no 'choices' list; expected an OpenAI chat completion (is base_url an OpenAI-compatible endpoint?)")
        return data

    async def _create(self, body: dict[str, Any]) -> dict:
        """POST one chat completion, re-sent on transient failures; errors are one line, key-free."""
        payload = orjson.dumps({"model": self.spec.model, **body})
        for attempt in range(self.max_retries + 1):
            try:
                return await self._send(payload)
            except _Retry as exc:
                if attempt == self.max_retries:
                    raise RuntimeError(f"{self.name}: gave up after {attempt + 1} attempt{'s' if attempt else ''}: {self.redact(str(exc))}") from None
                self.retries += 1
                note_retry()  # the runner records the call's attempts
                await asyncio.sleep(exc.wait if exc.wait is not None else backoff(attempt))
        raise AssertionError("unreachable")

    # -- requests ---------------------------------------------------------------------------------
    def build_request(self, messages, *, n, max_tokens, temperature, stop, seed) -> dict[str, Any]:
        req: dict[str, Any] = {"messages": messages, "n": n, self.max_tokens_field: max_tokens, "temperature": temperature}
        if stop:
            req["stop"] = list(stop)
        if seed is not None:
            req["seed"] = seed
        return req

    @staticmethod
    def parse_response(data: dict, n: int) -> list[Completion]:
        usage = data.get("usage") or {}
        ptoks = int(usage.get("prompt_tokens") or 0)
        ctoks = int(usage.get("completion_tokens") or 0)
        choices = sorted((c for c in data["choices"] if isinstance(c, dict)), key=lambda c: c.get("index") or 0)[:n]
        k = max(1, len(choices))
        return [Completion((c.get("message") or {}).get("content") or "", ptoks, ctoks // k + (1 if i < ctoks % k else 0))
                for i, c in enumerate(choices)]

    async def generate(self, messages, *, n=1, max_tokens=512, temperature=0.0, stop=None, seed=None):
        outs: list[Completion] = []
        # Servers that ignore `n` (llama.cpp) answer once: ask again for the rest, with shifted seeds.
        for attempt in range(n):
            want = n - len(outs)
            if want <= 0:
                break
            s = None if seed is None else seed + attempt
            data = await self._create(self.build_request(messages, n=want, max_tokens=max_tokens,
                                                         temperature=temperature, stop=stop, seed=s))
            got = self.parse_response(data, want)
            if not got:
                raise BenchError(f"{self.name}: the server returned no choices; expected at least one (is base_url an OpenAI-compatible chat endpoint?)")
            outs.extend(got)
        return outs

    def build_probs_request(self, messages, prefix: str) -> dict[str, Any]:
        req: dict[str, Any] = {"temperature": 0.0, "logprobs": True, "top_logprobs": self.top_logprobs, "n": 1}
        if self.prefill:
            req["messages"] = list(messages) + [{"role": "assistant", "content": prefix}]
            req[self.max_tokens_field] = 1
            # vLLM continues a final assistant message only when asked to
            req.update(continue_final_message=True, add_generation_prompt=False)
        else:
            req["messages"] = list(messages)
            req[self.max_tokens_field] = 8 + len(prefix) // 2
        return req

    @staticmethod
    def parse_probs(data: dict, prefix: str, choices, prefilled: bool) -> list[float] | None:
        """P(choice) at the first generated position that follows `prefix`; None if none does."""
        first = data["choices"][0] if data.get("choices") else {}
        content = (first.get("logprobs") or {}).get("content") or []
        want = prefix.strip()
        written = ""
        for pos, tok in enumerate(content):
            token = tok.get("token") or ""
            at_answer = (prefilled and pos == 0) or (want and written.rstrip().endswith(want)) or (not want and pos == 0)
            if at_answer:
                probs = {c: 0.0 for c in choices}
                for alt in tok.get("top_logprobs") or []:
                    t = (alt.get("token") or "").strip()
                    if t in probs:
                        probs[t] += math.exp(alt.get("logprob", -math.inf))
                total = sum(probs.values())
                if total > 0:
                    return [probs[c] / total for c in choices]
                if token.strip():  # the model wrote something else here: no answer to read
                    return None
            written += token
        return None

    async def choice_probs(self, messages, prefix="Answer: ", choices=("1", "2")):
        if not self.capabilities.logprobs:
            return None
        data = await self._create(self.build_probs_request(messages, prefix))
        return self.parse_probs(data, prefix, tuple(choices), self.prefill)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is None or self._client_loop is not asyncio.get_running_loop():
            return
        if self.lean_http:
            client.close()
        elif not client.closed:
            await client.close()
