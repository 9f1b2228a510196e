"""`openai:` — any OpenAI-compatible chat endpoint, through the official `openai` client.

`openai:MODEL[,base_url=URL,api_key_env=VAR,api_key=KEY,timeout=120,max_retries=5,concurrency=8,
logprobs=true,images=true,prefill=true,max_tokens_field=max_completion_tokens,organization=ORG,
project=PROJ,azure=true,api_version=V,PARAM=VALUE,extra_body.NAME=VALUE]`

Covers OpenAI, Azure OpenAI (`azure=true` or `api_version=`: `AsyncAzureOpenAI`, MODEL is the
deployment) and vLLM, llama.cpp, Ollama or LiteLLM servers. What the SDK gives is kept: its
retries (408/409/429/5xx, timeouts, dropped connections; `Retry-After`, then 0.5–8 s backoff;
`max_retries`), its errors, `OPENAI_API_KEY`/`OPENAI_BASE_URL`/`OPENAI_ORG_ID`/`OPENAI_PROJECT_ID`
(and the `AZURE_OPENAI_*` variables). It runs on the SDK's aiohttp transport and posts through the
client's documented `post(..., cast_to=httpx.Response)`: the SDK's retries, headers and errors
without its typed request and response models. Client CPU per request on loopback
(benchmarks/client_ceiling.json): 1.1–1.5 ms that way, 1.6–2.4 ms for the typed `create` on
aiohttp, 2.5–4.8 ms on the default httpx transport, where C = 256 reached only 0.19–0.22 of C/L.

Two small hooks on the HTTP client: every re-send is reported to the runner (`note_retry`: the
call's `attempts` and the progress display) and counted in `model.retries`; and a 200 whose body
is not JSON (a body cut off by a proxy) is raised as a broken transfer inside the SDK's send, so
the SDK re-sends it like a dropped connection. Chat-completions parameters the SDK knows
(`top_p`, `reasoning_effort`, `service_tier`, ...) pass through by name, a server's own ones (vLLM's
`top_k`) as `extra_body.NAME=VALUE`; both enter the cache fingerprint. The API key is kept out of
the name, the fingerprint and every error message.

Judge probabilities (`logprobs=true`): a short greedy generation with `top_logprobs=20`; P("1")
and P("2") are read at the first generated position that follows the prefix ("Answer: "), so
it works whether the model writes "Answer: 1" itself or (`prefill=true`, for servers that
continue a final assistant message) starts right after a prefilled "Answer: ".
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import os
import random
import re
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import orjson

if TYPE_CHECKING:
    import openai

from oversight_bench.api import (BenchError, Capabilities, Completion, MalformedResponse, MASK, Model, Spec,
                                 is_secret_name, note_no_probs, note_retry, note_usage, register_secret)

from model_adapters._flow import AdaptiveLimit, Replicas
from model_adapters.openai_options import EXTRA, OpenAIOptions, clean_url, replica_urls
from model_adapters.openai_replies import (NON_FINITE, first_token, loads, one_line, parse_probs, parse_response,
                                           token_count, why_no_probs)
from model_adapters.options import parse_options

_KEY_PATTERN = re.compile(r"\b(sk-[A-Za-z0-9_\-]{6,}|Bearer\s+\S+)")
#: the reply being read for the request in progress: how many bytes it may hold, and what went wrong
_REPLY: contextvars.ContextVar["_Reply | None"] = contextvars.ContextVar("openai_reply", default=None)
#: a reply may hold this many bytes, plus `REPLY_BYTES_PER_TOKEN` per token asked for (and
#: `LOGPROB_BYTES` per top logprob of each): a server that sends more is malformed, not stored
REPLY_BASE_BYTES = 256 * 1024
REPLY_BYTES_PER_TOKEN = 256
LOGPROB_BYTES = 256
#: statuses re-sent after a back-off (the SDK's own list): timeouts, conflicts, rate limits, server errors
_RETRY_STATUS = {408, 409, 429}
#: the most seconds a Retry-After is honoured for, and the back-off without one (doubling from 0.5 s)
MAX_RETRY_AFTER_S = 60.0
MAX_BACKOFF_S = 8.0
#: how each server answered the probability probe: (server, model, top_logprobs) -> prefill or not
_PROBS_FORM: dict[tuple[str, str, int], bool] = {}


class _Reply:
    __slots__ = ("limit", "too_big", "bytes")

    def __init__(self, limit: int):
        self.limit, self.too_big, self.bytes = limit, False, 0


class OpenAIModel(Model):
    max_concurrency = 8
    #: what an `openai:` spec may set (`openai_options`)
    Options = OpenAIOptions

    def __init__(self, spec: Spec):
        super().__init__(spec)
        o = parse_options(self, spec)
        # passed through into every request body (the Options model checked their names)
        self.params: dict[str, Any] = {k.removeprefix(EXTRA): v for k, v in (o.model_extra or {}).items()}
        self.azure = o.azure or o.api_version is not None
        key_env = o.api_key_env or ("AZURE_OPENAI_API_KEY" if self.azure else "OPENAI_API_KEY")
        api_key = o.api_key or os.environ.get(key_env)
        if self.azure:
            base_url = o.base_url or os.environ.get("AZURE_OPENAI_ENDPOINT")
            if not base_url:
                raise BenchError(f"openai model {spec.model!r}: azure needs the endpoint; pass base_url=https://RESOURCE.openai.azure.com or set $AZURE_OPENAI_ENDPOINT")
            self.api_version = o.api_version or os.environ.get("OPENAI_API_VERSION")
            if not self.api_version:
                raise BenchError(f"openai model {spec.model!r}: azure needs an API version; pass api_version=2024-10-21 or set $OPENAI_API_VERSION")
        else:
            base_url = o.base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        # `URL1|URL2|...`: replicas of one model; the first names it (its cache key and its name), the
        # others only share the load (an execution setting: a resume may change them)
        try:  # checked again: the URL may come from $OPENAI_BASE_URL or $AZURE_OPENAI_ENDPOINT
            self.urls = replica_urls(base_url)
        except ValueError as exc:
            raise BenchError(f"openai model {spec.model!r}: base_url {exc}; expected e.g. http://127.0.0.1:8000/v1") from None
        self.base_url = self.urls[0]
        if not api_key:
            if "api.openai.com" in self.base_url:
                raise BenchError(f"openai model {spec.model!r}: no API key; set ${key_env} or pass api_key_env=VAR")
            if self.azure and os.environ.get("AZURE_OPENAI_AD_TOKEN"):
                api_key = None  # the SDK authenticates with the Entra ID token instead
            else:
                api_key = "none"  # local servers (llama.cpp, vLLM, Ollama) accept any key
        self._api_key = None if api_key is None else str(api_key).strip()  # a key from a file often ends in a newline
        if self._api_key is not None and (not self._api_key.isprintable() or not self._api_key.isascii()):
            raise BenchError(f"openai model {spec.model!r}: the API key holds a control or non-ASCII character; expected the key alone, as the provider shows it")
        if any(urlsplit(u).username is not None for u in self.urls):
            import sys

            print(f"warning: {self.name}: the user:password@ part of base_url is not sent (the OpenAI client authenticates "
                  f"with the API key as a bearer token); give the key with api_key_env= or $OPENAI_API_KEY", file=sys.stderr)
        # A query in base_url (`...?api-version=1`) is sent with every request: the SDK would glue
        # the path after it. Its values may be secrets, so errors hide them.
        self._queries = {u: dict(parse_qsl(urlsplit(u).query)) for u in self.urls}
        self._query = self._queries[self.base_url]
        self._secrets = [s for s in [self._api_key] if s and s != "none" and len(s) >= 4]
        for u in self.urls:
            parts = urlsplit(u)
            self._secrets += [s for s in [*self._queries[u].values(), parts.username, parts.password] if s and len(s) >= 4]
        for s in self._secrets:  # a server that echoes a request back cannot carry them into the store
            register_secret(s)
        # A body value (pass-through or extra_body.) that is a configured secret, or is named like a
        # credential, is one wherever it shows: registered, and masked in the fingerprint (which
        # every stored request carries) as in the name. The request itself still sends it.
        for k, v in list(self.params.items()):
            if is_secret_name(k) or str(v) in self._secrets:
                register_secret(v)
                self._secrets.append(str(v))
        self.timeout, self.max_retries, self.max_concurrency = o.timeout, o.max_retries, o.concurrency
        self.rpm, self.tpm = o.rpm, o.tpm
        self.prefill, self.top_logprobs, self.max_tokens_field = o.prefill, o.top_logprobs, o.max_tokens_field
        self.prefill_given = "prefill" in o.model_fields_set  # else the probe tries the prefilled form first
        self.organization, self.project = o.organization, o.project
        # a server that continues a final assistant message (prefill=true) continues a begun reply
        self.capabilities = Capabilities(images=o.images, logprobs=o.logprobs, multi_sample=True, continuation=self.prefill)
        # what was sent: every request (`sent`) and the re-sends among them (`retries`: after a
        # timeout, 429, 5xx, dropped connection or cut-off body, each after a back-off)
        self.sent = 0
        self.retries = 0
        self.flow = AdaptiveLimit(self.max_concurrency, self.timeout)
        self.replicas = Replicas(self.urls)
        # The cache key: the model and the base URL without credentials or query, as in every earlier
        # version (stored runs re-run without a call); pass-through parameters join it when set.
        self._fingerprint: dict[str, Any] = {"model": f"openai:{spec.model}", "base_url": clean_url(self.base_url)}
        if self.params:
            self._fingerprint["params"] = {k: MASK if str(v) in self._secrets else v for k, v in sorted(self.params.items())}
        # one SDK client per replica and event loop (tests and CLI commands run several loops)
        self._clients: dict[str, openai.AsyncOpenAI] = {}
        self._client_loop = None
        self._limiters: tuple[Any, Any] = (None, None)

    def request_fingerprint(self) -> dict[str, Any]:
        return self._fingerprint

    def redact(self, text: str) -> str:
        for secret in sorted(self._secrets, key=len, reverse=True):
            text = text.replace(secret, MASK)
        return _KEY_PATTERN.sub("***", text)

    def traffic(self) -> dict[str, Any]:
        """What this model sent, for the end of the run: requests, re-sends, the calls in flight it
        settled at and its ceiling, and per replica the requests each got."""
        out = {"sent": self.sent, "resent": self.retries, "settled_concurrency": self.flow.settled(),
               "peak_in_flight": self.flow.peak, "ceiling": self.flow.ceiling, "decreases": self.flow.decreases,
               "holds": self.flow.holds}
        if len(self.urls) > 1:
            out["replicas"] = {clean_url(r.url): r.sent for r in self.replicas.items}
        return out

    # -- the SDK client ---------------------------------------------------------------------------
    def _sdk(self, url: str | None = None) -> openai.AsyncOpenAI:
        loop = asyncio.get_running_loop()
        if self._client_loop is not loop:
            self._clients, self._client_loop = {}, loop
            self._limiters = self._new_limiters()
        url = url or self.base_url
        client = self._clients.get(url)
        if client is None:
            import httpx2
            import openai

            parts = urlsplit(url)
            http = openai.DefaultAioHttpClient(
                event_hooks={"response": [self._on_response]},
                # the adaptive window bounds the calls in flight; a smaller pool would queue them inside their timeout
                limits=httpx2.Limits(max_connections=max(1000, self.max_concurrency), max_keepalive_connections=100))
            # re-sends are made here (`_create`), after the window shrank and a back-off: never by the SDK
            common = dict(api_key=self._api_key, organization=self.organization,
                          project=self.project, timeout=self.timeout,
                          max_retries=0, default_query=self._queries.get(url) or None, http_client=http)
            # user:password@ is not sent: the SDK authenticates with the key as a bearer token, and its
            # aiohttp transport refuses URL credentials beside that header (see __init__'s warning)
            bare = urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))
            if self.azure:
                client = openai.AsyncAzureOpenAI(azure_endpoint=bare, azure_deployment=self.spec.model,
                                                 api_version=self.api_version, **common)
            else:
                client = openai.AsyncOpenAI(base_url=bare, **common)
            self._clients[url] = client
        return client

    def _new_limiters(self) -> tuple[Any, Any]:
        """`rpm=` and `tpm=` as aiolimiter's leaky buckets (one per event loop, as the clients)."""
        if self.rpm is None and self.tpm is None:
            return None, None
        from aiolimiter import AsyncLimiter

        return (AsyncLimiter(self.rpm, 60) if self.rpm else None, AsyncLimiter(self.tpm, 60) if self.tpm else None)

    async def _on_response(self, response) -> None:
        """The body, read here with a bound (`_Reply.limit`: a reply far beyond what was asked is not
        read into memory, let alone stored); a 200 whose body is not JSON is a broken transfer."""
        import httpx2

        box = _REPLY.get()
        chunks, size = [], 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if box is not None and size > box.limit:
                box.too_big, box.bytes = True, size
                raise httpx2.DecodingError(f"the reply exceeds {box.limit} bytes", request=response.request)
            chunks.append(chunk)
        body = b"".join(chunks)
        response._content = body  # as `aread` would have kept it (httpx reads no further)
        if response.status_code == 200:
            try:
                loads(body)
            except ValueError as exc:  # cut off, not UTF-8, too deep: a transport failure, re-sent
                why = " ".join(str(exc).split())[:100]
                if not why.startswith(NON_FINITE):  # NaN, Infinity, 1e999: whole, but no answer (see _create)
                    raise httpx2.DecodingError(f"the body is not JSON ({len(body)} bytes: {why})",
                                              request=response.request) from None

    def _reply_limit(self, body: dict[str, Any]) -> int:
        tokens = int(body.get(self.max_tokens_field) or 0) * int(body.get("n") or 1)
        per = REPLY_BYTES_PER_TOKEN + (LOGPROB_BYTES * self.top_logprobs if body.get("logprobs") else 0)
        return REPLY_BASE_BYTES + tokens * per

    async def _create(self, body: dict[str, Any]) -> dict:
        """POST one chat completion: through the adaptive window, the rate limits and the healthiest
        replica, within `timeout` for the whole request; re-sent after a back-off on a timeout, 429,
        5xx, dropped connection or cut-off body (up to `max_retries` times). Errors are one key-free line."""
        import httpx2
        import openai

        # the body as bytes: the SDK would deep-copy and re-serialise a dict on every attempt
        content = orjson.dumps({"model": self.spec.model, **self.params, **body})
        limit = self._reply_limit(body)
        kind = (bool(body.get("logprobs")), body.get(self.max_tokens_field))
        attempts = 0
        while True:
            attempts += 1
            replica, wait = self.replicas.pick()
            if wait > 0:
                await asyncio.sleep(wait)
            client = self._sdk(replica.url)
            rpm, tpm = self._limiters
            if rpm is not None:
                await rpm.acquire()
            if tpm is not None:
                await tpm.acquire(min(float(self.tpm), len(content) / 4 + limit / REPLY_BASE_BYTES + int(body.get(self.max_tokens_field) or 0)))
            slot = await self.flow.acquire()
            retry_after: float | None = None
            failure: Exception
            box = _Reply(limit)
            token = _REPLY.set(box)
            replica.in_flight += 1
            replica.sent += 1
            self.sent += 1
            if attempts > 1:
                self.retries += 1
                note_retry()
            try:
                async with slot:
                    try:
                        async with asyncio.timeout(self.timeout):
                            response = await client.post("/chat/completions", cast_to=httpx2.Response, content=content)
                    except TimeoutError:
                        self.flow.loss(slot, timeout=True)
                        failure = RuntimeError(f"{self.name}: APITimeoutError: no answer within {self.timeout:g} s")
                    except openai.APIStatusError as exc:
                        if exc.status_code not in _RETRY_STATUS and exc.status_code < 500:
                            raise self._error(exc, attempts) from None
                        self.flow.loss(slot)
                        retry_after = _retry_after(exc.response.headers)
                        failure = exc
                    except openai.APIConnectionError as exc:
                        if box.too_big:
                            raise MalformedResponse(f"{self.name}: the reply holds more than {limit} bytes (at least {box.bytes}) for "
                                                    f"{body.get(self.max_tokens_field)} tokens asked; expected a chat completion of that size") from None
                        if _timed_out(exc):
                            self.flow.loss(slot, timeout=True)
                        elif len(self.urls) > 1:
                            self.replicas.failed(replica)  # a dead replica is no sign of congestion at the others
                        else:
                            self.flow.loss(slot)
                        failure = exc
                    else:
                        try:
                            data = loads(response.content)
                        except ValueError as exc:  # NaN, Infinity or 1e999 anywhere (a usage count, a logprob)
                            raise MalformedResponse(f"{self.name}: the server's answer holds a "
                                                    f"{' '.join(str(exc).split())[:80]}; expected JSON with finite "
                                                    "numbers") from None
                        if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
                            raise MalformedResponse(f"{self.name}: the server's answer has no 'choices' list; expected an OpenAI chat completion (is base_url an OpenAI-compatible endpoint?)")
                        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
                        ptoks, ctoks = token_count(usage.get("prompt_tokens")), token_count(usage.get("completion_tokens"))
                        self.flow.answered(slot, kind, 1 + ctoks + ptoks / 20)
                        self.replicas.ok(replica)
                        note_usage(ptoks, ctoks)
                        return data
            finally:
                replica.in_flight -= 1
                _REPLY.reset(token)
            if attempts > self.max_retries:
                raise (self._error(failure, attempts) if isinstance(failure, openai.APIError)
                       else RuntimeError(self.redact(f"{failure}{_after(attempts)}")))
            # back off out of the window: the re-send waits for a slot of the (now smaller) window
            await asyncio.sleep(retry_after if retry_after is not None
                                else min(MAX_BACKOFF_S, 0.5 * 2 ** (attempts - 1)) * (1 - 0.25 * random.random()))

    def _error(self, exc: openai.APIError, attempts: int) -> Exception:
        """The SDK's error as one line: its class name, the HTTP status and the server's message."""
        import openai

        after = _after(attempts)
        if isinstance(exc, openai.APIStatusError):
            body = exc.body
            msg = body.get("message") if isinstance(body, dict) else body if isinstance(body, str) else None
            detail = one_line(msg or exc.response.text[:200] or "no body")
            text = self.redact(f"{self.name}: {type(exc).__name__}: HTTP {exc.status_code}: {detail}{after}")
            # a wrong key, model or URL fails the run; anything else (413, 422, a 5xx that outlasted
            # the retries) fails this call's job only
            fatal = (openai.BadRequestError, openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError)
            return BenchError(text) if isinstance(exc, fatal) else RuntimeError(text)
        name, detail = type(exc).__name__, one_line(exc.message)
        if isinstance(exc, openai.APIConnectionError):
            root = exc
            while root.__cause__ is not None:
                root = root.__cause__
            if isinstance(root, TimeoutError):
                detail = f"no answer within {self.timeout:g} s"
            elif root is not exc:  # the aiohttp transport reports a refused connection as a timeout
                name, detail = "APIConnectionError", f"{one_line(root) or type(root).__name__} ({clean_url(self.base_url)})"
        return RuntimeError(self.redact(f"{self.name}: {name}: {detail}{after}"))

    # -- requests ---------------------------------------------------------------------------------
    def build_request(self, messages, *, n, max_tokens, temperature, stop, seed, prefix=None) -> dict[str, Any]:
        req: dict[str, Any] = {"messages": messages, "n": n, self.max_tokens_field: max_tokens, "temperature": temperature}
        if prefix:  # vLLM and llama.cpp servers continue a final assistant message when asked to
            req["messages"] = list(messages) + [{"role": "assistant", "content": prefix}]
            req.update(continue_final_message=True, add_generation_prompt=False)
        if stop:
            req["stop"] = list(stop)
        if seed is not None:
            req["seed"] = seed
        return req

    parse_response = staticmethod(parse_response)

    async def generate(self, messages, *, n=1, max_tokens=512, temperature=0.0, stop=None, seed=None, prefix=None):
        outs: list[Completion] = []
        # Servers that ignore `n` (llama.cpp) answer once: ask again for the rest, with shifted seeds.
        for attempt in range(n):
            want = n - len(outs)
            if want <= 0:
                break
            s = None if seed is None else seed + attempt
            data = await self._create(self.build_request(messages, n=want, max_tokens=max_tokens,
                                                         temperature=temperature, stop=stop, seed=s, prefix=prefix))
            got = self.parse_response(data, want)
            if not got:
                raise MalformedResponse(f"{self.name}: the server returned no choices; expected at least one (is base_url an OpenAI-compatible chat endpoint?)")
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

    parse_probs = staticmethod(parse_probs)

    async def choice_probs(self, messages, prefix="Answer: ", choices=("1", "2")):
        if not self.capabilities.logprobs:
            return None
        prefill = _PROBS_FORM.get(self._probe_key(), self.prefill)
        data = await self._create(self._probs_request(messages, prefix, prefill))
        probs = self.parse_probs(data, prefix, tuple(choices), prefill)
        if probs is None:
            note_no_probs(why_no_probs(data, prefix, tuple(choices), prefill, self.top_logprobs))
        return probs

    def _probe_key(self) -> tuple[str, str, int]:
        return clean_url(self.base_url), self.spec.model, self.top_logprobs

    def _probs_request(self, messages, prefix: str, prefill: bool) -> dict[str, Any]:
        was, self.prefill = self.prefill, prefill
        try:
            return self.build_probs_request(messages, prefix)
        finally:
            self.prefill = was

    async def check_ready(self, *, probs: bool = False) -> str | None:
        """Before a run's first judge call in probs mode: one short probe (once per server and model
        in a process) of which request form gives answer probabilities here. A spec that sets
        `prefill=` has its form probed first; otherwise the prefilled form is: where the server
        continues a final assistant message, the probabilities are read right after "Answer: "
        whatever the model would have written (a small model writes "The answer is 2", which the
        other form cannot read). A prefilled probe counts only when its first token is itself a
        choice (a server that ignores the prefix starts a new reply). Returns a note when the form
        differs from the spec's; raises a one-line BenchError naming the fix when neither works."""
        if not probs or not self.capabilities.logprobs:
            return None
        key = self._probe_key()
        if key in _PROBS_FORM:
            return None
        why = {}
        for prefill in ((self.prefill, not self.prefill) if self.prefill_given else (True, False)):
            # prefilled: few-shot, so a server that continues the prefix shows a digit next; not
            # prefilled: zero-shot as the run's judge prompts are, so a model that does not write
            # "Answer: N" by itself (a 135M model writes "The answer is 2") is found here, not in every call
            try:
                data = await self._create(self._probs_request(_PROBE if prefill else _PROBE[-1:], "Answer: ", prefill))
                found = self.parse_probs(data, "Answer: ", ("1", "2"), prefill)
                if found is not None and prefill and first_token(data) not in ("1", "2"):
                    found, why[prefill] = None, f"the reply did not continue the prefix (reply {first_token(data)!r}...)"
            except MalformedResponse:  # the probe cannot tell: the run's own calls meet it, re-send and fail their jobs
                return None
            if found is not None:
                _PROBS_FORM[key] = prefill
                if prefill != self.prefill:
                    how = ("continues a prefilled 'Answer: '" if prefill else "gives them only without a prefilled 'Answer: '")
                    return (f"{self.name}: the server {how} (probed); the run reads answer probabilities with "
                            f"prefill={str(prefill).lower()} (add it to the spec to skip the probe)")
                return None
            why.setdefault(prefill, why_no_probs(data, "Answer: ", ("1", "2"), prefill, self.top_logprobs))
        raise BenchError(f"{self.name}: no answer probabilities from this server and model (probed: with prefill=true {why[True]}; "
                         f"with prefill=false {why[False]}); use a server that returns top logprobs and continues a final "
                         f"assistant message (vLLM), a judge that writes 'Answer: N' itself, or -o judge_mode=predict")

    async def aclose(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        if clients and self._client_loop is asyncio.get_running_loop():
            for client in clients:
                await client.close()


#: the probe's judge question (few-shot for the prefilled form; its last message alone for the other)
def _probe_q(q: str, a: str, b: str) -> str:
    return f"Question: {q}\nAnswer 1: {a}\nAnswer 2: {b}\nReply with 'Answer: 1' or 'Answer: 2'."


_PROBE = [{"role": "user", "content": _probe_q("Is water wet?", "No", "Yes")}, {"role": "assistant", "content": "Answer: 2"},
          {"role": "user", "content": _probe_q("Is the sun hot?", "Yes", "No")}, {"role": "assistant", "content": "Answer: 1"},
          {"role": "user", "content": _probe_q("Is Paris the capital of France?", "Yes", "No")}]


def _after(attempts: int) -> str:
    return f" (after {attempts} attempts)" if attempts > 1 else ""


def _timed_out(exc: BaseException) -> bool:
    while exc is not None:
        if isinstance(exc, TimeoutError):
            return True
        exc = exc.__cause__
    return False


def _retry_after(headers) -> float | None:
    """The seconds a 429 or 503 asks to wait (`retry-after-ms`, `retry-after`), bounded; None if none."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            value = float(headers.get(name)) * scale
        except (TypeError, ValueError):
            continue
        if math.isfinite(value) and value >= 0:
            return min(value, MAX_RETRY_AFTER_S)
    return None
