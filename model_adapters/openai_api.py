"""`openai:` — any OpenAI-compatible chat endpoint through the official async client.

`openai:MODEL[,base_url=URL,api_key_env=VAR,api_key=KEY,timeout=60,max_retries=5,concurrency=8,
logprobs=true,images=true,prefill=true,max_tokens_field=max_completion_tokens]`

Covers OpenAI itself and vLLM, llama.cpp, Ollama or LiteLLM servers. Retries with backoff on
429/5xx/timeouts are the client's own (`max_retries`); an httpx event hook reading the client's
retry-count header reports every re-sent request to the runner (`note_retry`: the call's
`attempts` and the progress display) and counts it in `model.retries`. The API key
comes from `api_key`, `$api_key_env` or `$OPENAI_API_KEY` and is kept out of the name, the cache
fingerprint, every error message and the openai/httpx loggers.

Judge probabilities (`logprobs=true`): a short greedy generation with `top_logprobs=20`; P("1")
and P("2") are read at the first generated position that follows the prefix ("Answer: "), so
it works whether the model writes "Answer: 1" itself or (`prefill=true`, for servers that
continue a final assistant message) starts right after a prefilled "Answer: ".
"""

from __future__ import annotations

import logging
import math
import os
import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from oversight_bench.errors import BenchError
from oversight_bench.models import Capabilities, Completion, Model, Spec
from oversight_bench.runner import note_retry

OPTIONS = {"base_url", "api_key_env", "api_key", "timeout", "max_retries", "concurrency", "logprobs",
           "images", "prefill", "max_tokens_field", "top_logprobs"}
_KEY_PATTERN = re.compile(r"\b(sk-[A-Za-z0-9_\-]{6,}|Bearer\s+\S+)")


def clean_url(url: str) -> str:
    """A base URL without credentials or query, for names and fingerprints."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


class _RedactFilter(logging.Filter):
    """Scrubs known secrets from log records of the openai and httpx loggers."""

    def __init__(self):
        super().__init__()
        self.secrets: set[str] = set()

    def redact(self, text: str) -> str:
        for s in self.secrets:
            text = text.replace(s, "***")
        return _KEY_PATTERN.sub("***", text)

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets or "sk-" in str(record.msg) or "Bearer" in str(record.msg):
            record.msg, record.args = self.redact(record.getMessage()), None
        return True


_FILTER = _RedactFilter()
for _name in ("openai", "httpx", "httpx2", "httpcore", "httpcore2"):
    logging.getLogger(_name).addFilter(_FILTER)


class OpenAIModel(Model):
    max_concurrency = 8

    def __init__(self, spec: Spec, *, transport: Any = None):
        super().__init__(spec)
        o = spec.options
        unknown = set(o) - OPTIONS
        if unknown:
            raise BenchError(f"openai model: unknown option(s) {', '.join(sorted(unknown))}; expected {', '.join(sorted(OPTIONS))}")
        key_env = str(o.get("api_key_env", "OPENAI_API_KEY"))
        api_key = o.get("api_key") or os.environ.get(key_env)
        self.base_url = str(o.get("base_url") or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1")
        if not api_key:
            if "api.openai.com" in self.base_url:
                raise BenchError(f"openai model {spec.model!r}: no API key; set ${key_env} or pass api_key_env=VAR")
            api_key = "none"  # local servers (llama.cpp, vLLM, Ollama) accept any key
        self._api_key = str(api_key)
        if self._api_key != "none":
            _FILTER.secrets.add(self._api_key)
        self.timeout = float(o.get("timeout", 120))
        self.max_retries = int(o.get("max_retries", 5))
        self.max_concurrency = int(o.get("concurrency", 8))
        self.prefill = bool(o.get("prefill", False))
        self.top_logprobs = int(o.get("top_logprobs", 20))
        self.max_tokens_field = str(o.get("max_tokens_field", "max_tokens"))
        self.capabilities = Capabilities(images=bool(o.get("images", False)), logprobs=bool(o.get("logprobs", False)),
                                         multi_sample=True)
        self.retries = 0  # requests the client re-sent after 429/5xx/timeouts
        self._transport = transport  # tests inject a mock transport
        self._client = None

    def request_fingerprint(self) -> dict[str, Any]:
        return {"model": f"openai:{self.spec.model}", "base_url": clean_url(self.base_url)}

    # -- client -----------------------------------------------------------------------------------
    async def _count_retry(self, request) -> None:
        try:
            if int(request.headers.get("x-stainless-retry-count", "0")) > 0:
                self.retries += 1
                note_retry()  # the runner records the call's attempts
        except ValueError:
            pass

    @property
    def client(self):
        if self._client is None:
            import openai

            extra = {"transport": self._transport} if self._transport is not None else {}
            http = openai.DefaultAsyncHttpxClient(event_hooks={"request": [self._count_retry]}, **extra)
            self._client = openai.AsyncOpenAI(api_key=self._api_key, base_url=self.base_url, timeout=self.timeout,
                                              max_retries=self.max_retries, http_client=http)
        return self._client

    def redact(self, text: str) -> str:
        if self._api_key and self._api_key != "none":
            text = text.replace(self._api_key, "***")
        return _KEY_PATTERN.sub("***", text)

    async def _create(self, **kwargs):
        """One chat.completions call; openai errors become one-line, key-free errors."""
        import openai

        try:
            return await self.client.chat.completions.create(model=self.spec.model, **kwargs)
        except (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError, openai.BadRequestError) as exc:
            raise BenchError(f"{self.name}: {type(exc).__name__}: {self.redact(str(exc))}") from None
        except openai.APIConnectionError as exc:
            raise RuntimeError(f"{self.name}: cannot reach the server after {self.max_retries} retries "
                               f"({type(exc).__name__}: {self.redact(str(exc))})") from None
        except openai.APIError as exc:
            raise RuntimeError(f"{self.name}: {type(exc).__name__}: {self.redact(str(exc))}") from None

    # -- requests ---------------------------------------------------------------------------------
    def build_request(self, messages, *, n, max_tokens, temperature, stop, seed) -> dict[str, Any]:
        req: dict[str, Any] = {"messages": messages, "n": n, self.max_tokens_field: max_tokens, "temperature": temperature}
        if stop:
            req["stop"] = list(stop)
        if seed is not None:
            req["seed"] = seed
        return req

    @staticmethod
    def parse_response(resp, n: int) -> list[Completion]:
        usage = getattr(resp, "usage", None)
        ptoks = getattr(usage, "prompt_tokens", 0) or 0
        ctoks = getattr(usage, "completion_tokens", 0) or 0
        choices = sorted(resp.choices, key=lambda c: c.index or 0)[:n]
        k = max(1, len(choices))
        return [Completion(c.message.content or "", ptoks, ctoks // k + (1 if i < ctoks % k else 0))
                for i, c in enumerate(choices)]

    async def generate(self, messages, *, n=1, max_tokens=512, temperature=0.0, stop=None, seed=None):
        outs: list[Completion] = []
        # Servers that ignore `n` (llama.cpp) answer once: ask again for the rest, with shifted seeds.
        for attempt in range(n):
            want = n - len(outs)
            if want <= 0:
                break
            s = None if seed is None else seed + attempt
            resp = await self._create(**self.build_request(messages, n=want, max_tokens=max_tokens,
                                                           temperature=temperature, stop=stop, seed=s))
            got = self.parse_response(resp, want)
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
            req["extra_body"] = {"continue_final_message": True, "add_generation_prompt": False}
        else:
            req["messages"] = list(messages)
            req[self.max_tokens_field] = 8 + len(prefix) // 2
        return req

    @staticmethod
    def parse_probs(resp, prefix: str, choices, prefilled: bool) -> list[float] | None:
        """P(choice) at the first generated position that follows `prefix`; None if none does."""
        lp = getattr(resp.choices[0], "logprobs", None)
        content = getattr(lp, "content", None) or []
        want = prefix.strip()
        written = ""
        for pos, tok in enumerate(content):
            at_answer = (prefilled and pos == 0) or (want and written.rstrip().endswith(want)) or (not want and pos == 0)
            if at_answer:
                probs = {c: 0.0 for c in choices}
                for alt in tok.top_logprobs or []:
                    t = alt.token.strip()
                    if t in probs:
                        probs[t] += math.exp(alt.logprob)
                total = sum(probs.values())
                if total > 0:
                    return [probs[c] / total for c in choices]
                if tok.token.strip():  # the model wrote something else here: no answer to read
                    return None
            written += tok.token
        return None

    async def choice_probs(self, messages, prefix="Answer: ", choices=("1", "2")):
        if not self.capabilities.logprobs:
            return None
        resp = await self._create(**self.build_probs_request(messages, prefix))
        return self.parse_probs(resp, prefix, tuple(choices), self.prefill)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None
