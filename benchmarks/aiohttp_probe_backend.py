"""A measurement probe, not a shipped backend: OpenAI-compatible chat over plain aiohttp.

The `openai:` backend spends most of each request's CPU inside the official client (see
`client_ceiling.py`). To show what the harness itself (runner, cache, store, protocol) sustains
when the HTTP client is cheap, `throughput.py` also runs the same evaluation through this
backend, `aiohttp-probe:MODEL,base_url=URL,concurrency=C`, registered as a plugin only for the
benchmark (a dist-info folder on PYTHONPATH). It does what lm-eval's `local-chat-completions`
does: one POST per call, JSON in and out, retries with backoff on 429/5xx/timeouts/dropped
connections (honouring Retry-After), counted for the call's record.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from oversight_bench import hookimpl
from oversight_bench.models import Capabilities, Completion, Model, Spec
from oversight_bench.runner import note_retry


class _Transient(Exception):
    def __init__(self, status: int, retry_after: str | None):
        super().__init__(f"HTTP {status}")
        self.retry_after = retry_after


class AiohttpProbeModel(Model):
    capabilities = Capabilities(multi_sample=True)

    def __init__(self, spec: Spec):
        super().__init__(spec)
        o = spec.options
        self.base_url = str(o["base_url"]).rstrip("/")
        self.max_concurrency = int(o.get("concurrency", 8))
        self.timeout = float(o.get("timeout", 60))
        self.max_retries = int(o.get("max_retries", 5))
        self.retries = 0
        self._session = None

    def request_fingerprint(self):
        return {"model": f"aiohttp-probe:{self.spec.model}", "base_url": self.base_url}

    def _client(self):
        if self._session is None:
            import aiohttp

            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self.max_concurrency),
                timeout=aiohttp.ClientTimeout(total=self.timeout),
                headers={"Authorization": f"Bearer {os.environ.get('OPENAI_API_KEY', 'none')}"})
        return self._session

    async def generate(self, messages, *, n=1, max_tokens=512, temperature=0.0, stop=None, seed=None):
        import aiohttp

        body = {"model": self.spec.model, "messages": messages, "n": n, "max_tokens": max_tokens,
                "temperature": temperature}
        if stop:
            body["stop"] = list(stop)
        if seed is not None:
            body["seed"] = seed
        for attempt in range(self.max_retries + 1):
            try:
                async with self._client().post(self.base_url + "/chat/completions", json=body) as r:
                    if r.status == 429 or r.status >= 500:
                        raise _Transient(r.status, r.headers.get("retry-after"))
                    r.raise_for_status()
                    data = json.loads(await r.read())
                break
            except (_Transient, aiohttp.ClientPayloadError, aiohttp.ClientConnectionError, asyncio.TimeoutError) as exc:
                if attempt == self.max_retries:
                    raise RuntimeError(f"{self.name}: gave up after {attempt + 1} attempts ({exc})") from None
                self.retries += 1
                note_retry()
                wait = min(8.0, 0.5 * 2 ** attempt)
                if isinstance(exc, _Transient) and exc.retry_after:
                    try:
                        wait = float(exc.retry_after)
                    except ValueError:
                        pass
                await asyncio.sleep(wait)
        usage = data.get("usage") or {}
        choices = sorted(data.get("choices") or [], key=lambda c: c.get("index", 0))[:n]
        k = max(1, len(choices))
        ctoks = int(usage.get("completion_tokens") or 0)
        return [Completion((c.get("message") or {}).get("content") or "", int(usage.get("prompt_tokens") or 0), ctoks // k)
                for c in choices]

    async def aclose(self):
        if self._session is not None:
            await self._session.close()
            self._session = None


@hookimpl
def register_models(register):
    register("aiohttp-probe", AiohttpProbeModel)


def install_as_plugin(folder: Path) -> dict[str, str]:
    """Make this module a plugin for a child process: a dist-info on PYTHONPATH. Returns the env."""
    d = folder / "obench_aiohttp_probe-0.1.dist-info"
    d.mkdir(parents=True, exist_ok=True)
    (d / "METADATA").write_text("Metadata-Version: 2.1\nName: obench-aiohttp-probe\nVersion: 0.1\n")
    (d / "entry_points.txt").write_text("[oversight_bench]\naiohttp_probe = aiohttp_probe_backend\n")
    here = str(Path(__file__).resolve().parent)
    return {"PYTHONPATH": os.pathsep.join(p for p in (str(folder), here, os.environ.get("PYTHONPATH", "")) if p)}
