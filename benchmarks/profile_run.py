"""Where a run's CPU goes, by package: cProfile of one `oversight-bench run` against the fake server.

    python benchmarks/profile_run.py [--n 2000] [--C 64] [--L 0.2]

Self time of every function is summed per package (openai, httpx2, pydantic, aiohttp, asyncio, sqlite3, json,
oversight_bench/...), so "is the harness the bottleneck?" has a number. cProfile slows
everything down, so read the shares, not the seconds.
"""

from __future__ import annotations

import argparse
import collections
import pstats
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from fake_openai_server import start_server  # noqa: E402

HARNESS = ("oversight_bench", "protocol_plugins", "sqlite3", "json", "store", "dataclasses", "tqdm")
CLIENT = ("openai", "httpx2", "httpx", "httpcore", "pydantic", "pydantic_core", "anyio", "sniffio", "aiohttp",
          "multidict", "yarl", "propcache", "model_adapters")


def by_package(path: str) -> collections.Counter:
    agg: collections.Counter = collections.Counter()
    for (fn, _, name), (_, _, tt, _, _) in pstats.Stats(path).stats.items():
        m = (re.search(r"site-packages/([^/]+)", fn) or re.search(r"/(oversight_bench|protocol_plugins|model_adapters)/", fn)
             or re.search(r"python3\.\d+/([^/]+)", fn) or re.search(r"benchmarks/([^/]+)\.py", fn))
        if m:
            key = m.group(1)
        elif "sqlite3" in name:
            key = "sqlite3"
        else:
            key = "other built-ins (" + name.split(" of ")[0].strip("<>{} ")[:30] + ")"
        agg[key.replace(".py", "")] += tt
    return agg


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--C", type=int, default=64)
    ap.add_argument("--L", type=float, default=0.2)
    ap.add_argument("--top", type=int, default=15)
    a = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="obench-profile-"))
    with start_server(latency=a.L) as srv:
        spec = f"openai:m,base_url={srv.url},concurrency={a.C}"
        subprocess.run([sys.executable, "-m", "cProfile", "-o", str(work / "p.out"), "-m", "oversight_bench.cli", "run",
                        "--judge", spec, "--agent", spec, "--tasks", "arith", "--protocols", "qa_without_article",
                        "--limit", str(a.n), "--output", str(work / "run"), "--quiet"],
                       check=True, capture_output=True)
    agg = by_package(str(work / "p.out"))
    total = sum(agg.values())
    share = lambda keys: sum(v for k, v in agg.items() if k.startswith(keys)) / total  # noqa: E731
    print(f"openai: {a.n} questions, C={a.C}, L={a.L * 1000:.0f} ms; self time {total:.1f} s under cProfile")
    for k, v in agg.most_common(a.top):
        print(f"  {100 * v / total:5.1f}%  {k}")
    print(f"HTTP client stack {100 * share(CLIENT):.0f}%, harness (core, protocol, sqlite, json) "
          f"{100 * share(HARNESS):.0f}%, rest: event loop, sockets, start-up")
    return 0


if __name__ == "__main__":
    sys.exit(main())
