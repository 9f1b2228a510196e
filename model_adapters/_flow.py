"""How many requests an HTTP backend keeps in flight, and where it sends them.

`AdaptiveLimit` is an AIMD window (TCP's congestion control, applied to calls in flight): it starts
at one request, doubles while the server keeps up (slow start), then grows by one request per
window of answers; it halves on a loss signal (a timeout, 429, 5xx or a dropped connection) and
shrinks by a fifth on a delay signal (an answer that took well over the fastest seen for its kind
of request, per unit of work, or over a third of the timeout): a server that answers one request at
a time queues the others, and a queued request that outlives the client's timeout is one the
server drops or computes for nobody. Before that, it stops growing once the answers slow down as
more are in flight (a gradient rule, as TCP Vegas): the smoothed ratio of latency to the fastest
seen (per unit of work) rising to `HOLD_FACTOR` times its lowest means the server queues what it
is sent beyond what it serves at once, so more in flight buys only latency. A one-slot server is
so driven at one or two requests in flight (two in flight answer in twice the time of one), a
64-slot server still at 64 (its answers take as long at 64 as at one). The ceiling is the spec's
`concurrency`. A decrease counts once per window (only a request sent after the last decrease can
cause the next), so a burst of failures halves the window once, not N times.

`Replicas` spreads requests over several servers of one model (`base_url=URL1|URL2`): the
healthy one with the fewest requests in flight; one that refuses or drops connections is taken out
for a while (5 s, doubling to 2 min while it stays down) and then tried again.
"""

from __future__ import annotations

import asyncio
import collections
import time
from dataclasses import dataclass, field
from typing import Any

#: an answer this many times slower than the fastest seen for its kind (per unit of work) is a queue
DELAY_FACTOR = 2.5
#: ... and only when it took at least this long (loopback noise and client CPU are not a queue)
DELAY_FLOOR_S = 0.5
#: an answer slower than this share of the timeout is a delay signal whatever its kind
TIMEOUT_SHARE = 1 / 3
#: the window stops growing while the smoothed delay ratio is this many times its lowest so far
HOLD_FACTOR = 1.5
#: ... and the answer waited at least this long beyond the fastest seen (client noise is no queue)
HOLD_FLOOR_S = 0.05
#: weight of the newest answer in the smoothed delay ratio
SMOOTHING = 0.25


class AdaptiveLimit:
    """Requests in flight for one model: `async with limit.slot() as s: ...; s.done(...)`."""

    def __init__(self, ceiling: int, timeout: float):
        self.ceiling = max(1, int(ceiling))
        self.timeout = timeout
        self.limit = 1.0
        self.slow_start = True
        self.in_flight = 0
        self.peak = 0
        self.epoch = 0  # decreases so far
        self.decreases = 0
        self.holds = 0  # answers after which the window did not grow because the server queued
        self._ratio: float | None = None  # smoothed latency / fastest for the kind, per unit of work
        self._base = float("inf")  # its lowest so far
        self._fastest: dict[Any, float] = {}
        self._waiters: collections.deque[asyncio.Future] = collections.deque()
        #: the window after each of the last answers: what the run settled at is their median
        self._recent: collections.deque[int] = collections.deque(maxlen=64)

    @property
    def window(self) -> int:
        return max(1, min(self.ceiling, int(self.limit)))

    async def acquire(self) -> "Slot":
        while self.in_flight >= self.window:
            fut = asyncio.get_running_loop().create_future()
            self._waiters.append(fut)
            try:
                await fut
            except BaseException:
                if fut in self._waiters:
                    self._waiters.remove(fut)
                elif fut.done() and not fut.cancelled():
                    self._wake()  # pass the wake-up on
                raise
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        return Slot(self, self.epoch, self.in_flight >= self.window, time.monotonic())

    def _release(self) -> None:
        self.in_flight -= 1
        self._wake()

    def _wake(self) -> None:
        free = self.window - self.in_flight
        while free > 0 and self._waiters:
            fut = self._waiters.popleft()
            if not fut.done():
                fut.set_result(None)
                free -= 1

    # -- signals ------------------------------------------------------------------------------------
    def _decrease(self, slot: "Slot", factor: float) -> None:
        self.slow_start = False
        if slot.epoch != self.epoch:  # sent before the last decrease: that one already answered for it
            return
        self.limit = max(1.0, self.limit * factor)
        self.epoch += 1
        self.decreases += 1

    def loss(self, slot: "Slot") -> None:
        """A timeout, 429, 5xx or a dropped connection: halve the window."""
        self._decrease(slot, 0.5)
        self._recent.append(self.window)

    def answered(self, slot: "Slot", kind: Any, work: float) -> None:
        """An answer after `time.monotonic() - slot.t0` seconds to a request of `kind` that asked
        for `work` units (tokens): grow the window, or shrink it if the answer waited in a queue."""
        latency = time.monotonic() - slot.t0
        per = latency / max(work, 1.0)
        fastest = self._fastest.get(kind)
        if fastest is None or per < fastest:
            self._fastest[kind] = fastest = per
        queued = latency >= DELAY_FLOOR_S and per > DELAY_FACTOR * fastest
        ratio = per / fastest if fastest > 0 else 1.0
        self._ratio = ratio if self._ratio is None else self._ratio + SMOOTHING * (ratio - self._ratio)
        self._base = min(self._base, self._ratio)
        waited = latency - fastest * max(work, 1.0)
        if queued or latency > self.timeout * TIMEOUT_SHARE:
            self._decrease(slot, 0.8)
        elif waited >= HOLD_FLOOR_S and (self.slow_start and ratio >= HOLD_FACTOR * self._base
                                            or self._ratio >= HOLD_FACTOR * self._base):
            # (slow start, which doubles the window each round trip, ends on one such answer)
            self.slow_start = False  # more in flight would only wait in the server's queue
            self.holds += 1
        elif slot.full and self.limit < self.ceiling:  # grow only a window that was in use
            self.limit = min(float(self.ceiling), self.limit + (1.0 if self.slow_start else 1.0 / self.limit))
            self._wake()
        self._recent.append(self.window)

    def settled(self) -> int:
        """The window the run settled at: the median over the last answers (the window now if none)."""
        if not self._recent:
            return self.window
        return sorted(self._recent)[len(self._recent) // 2]


@dataclass
class Slot:
    owner: AdaptiveLimit
    epoch: int
    full: bool  # the window was full when this request went out
    t0: float

    async def __aenter__(self) -> "Slot":
        return self

    async def __aexit__(self, *exc) -> None:
        self.owner._release()


@dataclass
class Replica:
    url: str
    in_flight: int = 0
    sent: int = 0
    failures: int = 0  # consecutive connection failures
    down_until: float = 0.0


@dataclass
class Replicas:
    """The servers of one model, and which are usable now."""

    urls: list[str]
    items: list[Replica] = field(init=False)
    #: seconds a replica that failed stays out (doubled per consecutive failure, up to `max_out_s`)
    out_s: float = 5.0
    max_out_s: float = 120.0

    def __post_init__(self) -> None:
        self.items = [Replica(u) for u in self.urls]
        self._turn = 0

    def pick(self) -> tuple[Replica, float]:
        """The healthy replica with the fewest requests in flight (round robin among equals), or, when
        every one is out, the one back soonest and the seconds until then."""
        now = time.monotonic()
        up = [r for r in self.items if r.down_until <= now]
        if not up:
            r = min(self.items, key=lambda r: r.down_until)
            return r, r.down_until - now
        self._turn += 1
        n = len(up)
        best = min(range(n), key=lambda i: (up[i].in_flight, (i - self._turn) % n))
        return up[best], 0.0

    def failed(self, r: Replica) -> None:
        """A refused or dropped connection: out for a while (only where there are others to use)."""
        r.failures += 1
        if len(self.items) > 1:
            r.down_until = time.monotonic() + min(self.max_out_s, self.out_s * 2 ** (r.failures - 1))

    def ok(self, r: Replica) -> None:
        r.failures = 0
        r.down_until = 0.0
