"""The `openai:` in-flight window against the fake server with N slots (requests beyond N queue, as
on a llama.cpp server): where the window settles, its peak, the most requests the server held at
once, and requests per second (the server's own count, first request to last answer).

`--old FILE` also runs an earlier `model_adapters/_flow.py` (e.g. `git show REV:model_adapters/_flow.py
> /tmp/old_flow.py`) on the same settings, for a before/after. Figures: benchmarks/flow_slots.json.

    python benchmarks/flow_slots.py --repeat 2 --old /tmp/old_flow.py
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fake_openai_server import ServerConfig, start_server  # noqa: E402

SETTINGS = [(1, 0.2, 40), (64, 0.5, 400), (64, 0.5, 2000)]  # (slots, seconds per answer, calls)


def drive(url: str, calls: int, ceiling: int, limit_cls) -> tuple[object, float]:
    from model_adapters.openai_api import OpenAIModel
    from oversight_bench.models import parse_spec

    model = OpenAIModel(parse_spec(f"openai:fake,base_url={url},concurrency={ceiling}"))
    model.flow = limit_cls(ceiling, model.timeout)

    async def main():
        try:
            await asyncio.gather(*(model.generate([{"role": "user", "content": f"Say anything ({i})."}], max_tokens=8)
                                   for i in range(calls)))
        finally:
            await model.aclose()

    t0 = time.monotonic()
    asyncio.run(main())
    return model, time.monotonic() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--old", help="an earlier _flow.py to compare")
    ap.add_argument("--out", default=str(Path(__file__).with_name("flow_slots.json")))
    a = ap.parse_args()
    from model_adapters import _flow

    flows = [("new", _flow.AdaptiveLimit)]
    if a.old:
        spec = importlib.util.spec_from_file_location("old_flow", a.old)
        old = importlib.util.module_from_spec(spec)
        sys.modules["old_flow"] = old
        spec.loader.exec_module(old)
        flows.insert(0, ("old", old.AdaptiveLimit))
    rows = []
    for slots, latency, calls in SETTINGS:
        for name, cls in flows:
            for _ in range(a.repeat):
                with start_server(ServerConfig(latency=latency, slots=slots)) as server:
                    model, wall = drive(server.url, calls, 64, cls)
                    st = server.stats()
                row = {"slots": slots, "latency_s": latency, "calls": calls, "flow": name, "ceiling": 64,
                       "settled": model.flow.settled(), "peak": model.flow.peak, "server_max_inflight": st["max_inflight"],
                       "decreases": model.flow.decreases, "holds": getattr(model.flow, "holds", None),
                       "wall_s": round(wall, 2), "server_rps": round(st["requests_per_s"], 1),
                       "bound_rps": round(slots / latency, 1)}
                print(json.dumps(row), flush=True)
                rows.append(row)
    Path(a.out).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
