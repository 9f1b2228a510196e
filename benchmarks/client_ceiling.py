"""How fast can a bare HTTP client talk to the fake server? The ceiling under any harness.

This measures HTTP clients alone (no harness, no store), each in a fresh process against the same
fake server, so a throughput figure of the whole harness can be read against what its HTTP
client allows. The `openai:` backend is the `sdk-aiohttp-post` row: the official client on its
aiohttp transport, posting through `post(..., cast_to=httpx.Response)` (`pip install -e
'.[bench]'` installs every client measured):

- `sdk-httpx`: `AsyncOpenAI().chat.completions.create` on the default httpx transport;
- `sdk-aiohttp`: the same call on the client's aiohttp transport (`DefaultAioHttpClient`);
- `sdk-aiohttp-post`: the client's `post(..., cast_to=httpx.Response)` on that transport, which
  skips the typed request transform and response models but keeps its retries and timeouts;
- `aiohttp`: a plain aiohttp session, as lm-eval's `local-chat-completions` does (and the
  `openai:` backend for https URLs and proxies);
- `aiosonic`, `curl-cffi`: two other maintained async clients (pure Python; libcurl), to see
  whether a library swap would buy anything.

Each on asyncio and on uvloop. Figures: requests/s in the server's window, the fraction of C/L,
and the client's CPU milliseconds per request.

    python benchmarks/client_ceiling.py [--n 2000] [--configs 64:0.2,256:0.2,64:0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from fake_openai_server import start_server  # noqa: E402

VARIANTS = ("sdk-httpx", "sdk-aiohttp", "sdk-aiohttp-post", "aiohttp", "aiosonic", "curl-cffi")


async def _drive(variant: str, url: str, C: int, n: int) -> None:
    sem = asyncio.Semaphore(C)
    body = lambda i: {"model": "m", "messages": [{"role": "user", "content": f"Question {i}: 1 or 2?"}],  # noqa: E731
                      "max_tokens": 16, "temperature": 0.0}
    if variant == "aiosonic":
        import aiosonic

        from aiosonic.pools import PoolConfig

        client = aiosonic.HTTPClient(aiosonic.TCPConnector(pool_configs={":default": PoolConfig(size=C)}))

        async def one(i):
            async with sem:
                r = await client.post(url + "/chat/completions", json=body(i))
                json.loads(await r.content())["choices"][0]["message"]["content"]

        await asyncio.gather(*(one(i) for i in range(n)))
        return
    if variant == "curl-cffi":
        from curl_cffi.requests import AsyncSession

        async with AsyncSession(max_clients=C) as s:
            async def one(i):
                async with sem:
                    r = await s.post(url + "/chat/completions", json=body(i))
                    json.loads(r.content)["choices"][0]["message"]["content"]

            await asyncio.gather(*(one(i) for i in range(n)))
        return
    if variant == "aiohttp":
        import aiohttp

        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=C)) as s:
            async def one(i):
                async with sem:
                    async with s.post(url + "/chat/completions", json=body(i)) as r:
                        r.raise_for_status()
                        json.loads(await r.read())["choices"][0]["message"]["content"]

            await asyncio.gather(*(one(i) for i in range(n)))
        return

    import openai

    http = openai.DefaultAioHttpClient() if variant.startswith("sdk-aiohttp") else openai.DefaultAsyncHttpxClient()
    client = openai.AsyncOpenAI(base_url=url, api_key="none", http_client=http, max_retries=2, timeout=60)
    if variant == "sdk-aiohttp-post":
        import httpx2 as httpx

        async def one(i):
            async with sem:
                r = await client.post("/chat/completions", body=body(i), cast_to=httpx.Response)
                json.loads(r.content)["choices"][0]["message"]["content"]
    else:
        async def one(i):
            async with sem:
                r = await client.chat.completions.create(**body(i))
                r.choices[0].message.content

    await asyncio.gather(*(one(i) for i in range(n)))
    await client.close()


def _child(variant: str, loop: str, url: str, C: int, n: int) -> None:
    """Runs in a fresh process: prints the client CPU seconds it spent."""
    t = time.process_time()
    if loop == "uvloop":
        import uvloop

        with asyncio.Scheduler(loop_factory=uvloop.new_event_loop) as r:
            r.run(_drive(variant, url, C, n))
    else:
        asyncio.run(_drive(variant, url, C, n))
    print(json.dumps({"cpu_s": time.process_time() - t}))


def measure(srv, variant: str, loop: str, C: int, L: float, n: int) -> dict:
    srv.reset()
    out = subprocess.run([sys.executable, __file__, "--child", variant, loop, srv.url, str(C), str(n)],
                         capture_output=True, text=True, check=True)
    cpu = json.loads(out.stdout.strip().splitlines()[-1])["cpu_s"]
    s = srv.stats()
    rps = s["requests_per_s"]
    return {"variant": variant, "loop": loop, "C": C, "L": L, "n": n, "requests_per_s": rps,
            "efficiency": rps / (C / L) if L else None, "client_cpu_ms_per_request": 1000 * cpu / n}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--configs", default="64:0.2,256:0.2,64:0", help="C:L pairs")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--loops", default="asyncio,uvloop")
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    if a.child:
        v, loop, url, C, n = a.child
        _child(v, loop, url, int(C), int(n))
        return 0
    rows = []
    servers = {}
    try:
        for cfg in a.configs.split(","):
            C, L = int(cfg.split(":")[0]), float(cfg.split(":")[1])
            if L not in servers:
                servers[L] = start_server(latency=L)
            for v in a.variants.split(","):
                for loop in a.loops.split(","):
                    r = measure(servers[L], v, loop, C, L, a.n)
                    rows.append(r)
                    eff = f"{r['efficiency']:.3f}" if r["efficiency"] is not None else "  -  "
                    print(f"C={C:<4} L={L * 1000:>4.0f} ms  {v:<17} {loop:<8} {r['requests_per_s']:8.1f} req/s  "
                          f"eff {eff}  client CPU {r['client_cpu_ms_per_request']:.2f} ms/req", flush=True)
    finally:
        for s in servers.values():
            s.stop()
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
