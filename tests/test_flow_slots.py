"""The `openai:` in-flight window against servers that compute N answers at once and queue the rest
(issue 32, item 1): a one-slot server (llama.cpp's default) is driven at one or two requests in
flight, a 64-slot server still at 64. The fake server's `slots=` queues requests beyond N, as
llama.cpp does; nothing times out, so only the latency signal can tell the two apart. The two
tests against a server are marked `timing`: another test on the other core lengthens every answer
with the window's size (a 64-slot server was then held at 31), so they run alone (.ci/tests)."""

from __future__ import annotations

import asyncio
import sys

import pytest

from helpers import REPO
from model_adapters._flow import AdaptiveLimit
from model_adapters.openai_api import OpenAIModel
from oversight_bench.models import parse_spec

sys.path.insert(0, str(REPO / "benchmarks"))
from fake_openai_server import ServerConfig, start_server  # noqa: E402

pytestmark = pytest.mark.timeout(120)


def drive(url: str, calls: int, ceiling: int) -> OpenAIModel:
    """`calls` distinct requests handed to the model at once: its window decides how many go out."""
    model = OpenAIModel(parse_spec(f"openai:fake,base_url={url},concurrency={ceiling}"))

    async def main():
        try:
            await asyncio.gather(*(model.generate([{"role": "user", "content": f"Say anything ({i})."}], max_tokens=8)
                                   for i in range(calls)))
        finally:
            await model.aclose()

    asyncio.run(main())
    return model


@pytest.mark.timing
def test_one_slot_server_is_driven_at_one_or_two_in_flight():
    with start_server(ServerConfig(latency=0.2, slots=1)) as server:
        model = drive(server.url, 40, ceiling=64)
        stats = server.stats()
    traffic = model.traffic()
    assert stats["responses"] == 40 and traffic["resent"] == 0
    assert traffic["settled_concurrency"] <= 2, traffic
    assert traffic["peak_in_flight"] <= 3 and stats["max_inflight"] <= 3, (traffic, stats)
    assert traffic["holds"] > 0  # the queue was seen as a queue, not a loss


@pytest.mark.timing
def test_sixty_four_slot_server_is_still_driven_at_sixty_four():
    with start_server(ServerConfig(latency=0.5, slots=64)) as server:
        model = drive(server.url, 400, ceiling=64)
        stats = server.stats()
    traffic = model.traffic()
    assert stats["responses"] == 400 and traffic["resent"] == 0
    assert traffic["settled_concurrency"] >= 48 and stats["max_inflight"] >= 48, (traffic, stats)


def _steady(limit: AdaptiveLimit, answers: int, latency) -> AdaptiveLimit:
    """`answers` answers with the window kept full, each `latency(requests in flight when it was
    sent)` seconds after it was sent (no clock: the slot's send time is moved back)."""
    async def main():
        flying = []
        for _ in range(answers):
            while limit.in_flight < limit.window:
                flying.append((await limit.acquire(), limit.in_flight))
            slot, n = flying.pop(0)
            slot.t0 -= latency(n)
            limit.answered(slot, "k", 1.0)
            limit._release()

    asyncio.run(main())
    return limit


def test_the_window_holds_when_latency_grows_with_requests_in_flight():
    """The rule alone, without timing: answers that take n service times with n in flight (one
    slot, the rest queued) stop the growth at two; answers that take as long at 64 in flight as at
    one (64 slots) do not."""
    queue = _steady(AdaptiveLimit(64, timeout=120), 200, lambda n: 0.3 * n)
    assert queue.window <= 2 and queue.settled() <= 2 and queue.peak <= 3 and queue.holds > 0
    parallel = _steady(AdaptiveLimit(64, timeout=120), 400, lambda n: 0.3)
    assert parallel.window == 64 and parallel.holds == 0


def test_answers_that_merely_vary_are_no_queue():
    """The realistic mix of scale_100k (95% in 50-300 ms, 4% in 1-3 s, 1% in 3-8 s, at any load): no
    answer count in flight makes them slower, so the window grows to the ceiling. (The old rule, one
    answer against the fastest ever seen, held it at 4 and shrank it on every slow answer.)"""
    import random

    rng = random.Random(0)

    def mix(_n: int) -> float:
        u = rng.random()
        lo, hi = (0.05, 0.3) if u < 0.95 else (1.0, 3.0) if u < 0.99 else (3.0, 8.0)
        return rng.uniform(lo, hi)

    for seed in range(5):
        rng.seed(seed)
        limit = _steady(AdaptiveLimit(128, timeout=60), 2000, mix)
        assert limit.window >= 96 and limit.decreases == 0, (seed, limit.window, limit.decreases, limit.holds)


def test_sporadic_failures_do_not_drag_the_window_down_but_a_failing_server_does():
    """2% of answers failing at random (a healthy API's odd 429 or 500) leave a 128 window high; a
    quarter failing halves it; one timeout halves it at once."""
    import random

    def run(share: float) -> AdaptiveLimit:
        rng = random.Random(1)
        limit = AdaptiveLimit(128, timeout=60)

        async def main():
            flying = []
            for _ in range(4000):
                while limit.in_flight < limit.window:
                    flying.append(await limit.acquire())
                slot = flying.pop(0)
                slot.t0 -= 0.2
                if rng.random() < share:
                    limit.loss(slot)
                else:
                    limit.answered(slot, "k", 1.0)
                limit._release()

        asyncio.run(main())
        return limit

    assert run(0.02).window >= 64
    assert run(0.25).window <= 8

    limit = AdaptiveLimit(128, timeout=60)
    limit.limit, limit.slow_start = 100.0, False

    async def one_timeout():
        slot = await limit.acquire()
        limit.loss(slot, timeout=True)
        limit._release()

    asyncio.run(one_timeout())
    assert limit.window == 50
