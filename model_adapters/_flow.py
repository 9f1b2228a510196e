"""How many requests an HTTP backend keeps in flight, and where it sends them.

`AdaptiveLimit` is an AIMD window (TCP's congestion control, applied to calls in flight): it starts
at one request, doubles while the server keeps up (slow start), then grows by one request per
window of answers (half the way back per window while below the window of its last decrease, as
TCP BIC: a window halved by a passing fault is regained in a few round trips, not a hundred); it
halves on a loss signal and shrinks by a fifth on a delay signal. The ceiling is the spec's
`concurrency`.

Loss: a timeout halves the window at once (a server that answers one request at a time queues the
others, and a queued request that outlives the client's timeout is one the server drops or
computes for nobody: a retry storm). A 429, 5xx or dropped connection halves it once they are more
than `LOSS_SHARE` of the last `LOSS_SPAN` answers: a server under too much load fails many requests, while the odd failure of a healthy one (an API's sporadic 500, a
rate limiter's single 429) is retried after its back-off without dragging the window down. A
decrease counts once per window (only a request sent after the last decrease can cause the next),
so a burst of failures halves the window once, not N times.

Delay: queueing shows as latency that grows with the requests in flight. Answers are kept per
window level (1, 2-3, 4-7, ...: the window when the request went out), per kind of request and
per unit of work (tokens); the typical answer at this level (the median) slower than
`HOLD_FACTOR` times every answer at the lowest level measured means the server queues what it is
sent beyond what it serves at once, so the window stops growing (a gradient rule, as TCP Vegas);
`DELAY_FACTOR` times their median shrinks it. Comparing levels, not one answer with the fastest
ever seen, keeps a server whose answers merely vary (50 ms to 8 s at any load) from looking like a
queue. Slow start takes `LEVEL_SAMPLES` answers at each level before leaving it, so the lowest
level is measured before the window can outgrow a one-slot server. A one-slot server is so driven
at one or two requests in flight (two in flight answer in twice the time of one), a 64-slot server
still at 64 (its answers take as long at 64 as at one). Any answer slower than a third of the
timeout shrinks the window as well.

`Replicas` spreads requests over several servers of one model (`base_url=URL1|URL2`): the
healthy one with the fewest requests in flight; one that refuses or drops connections is taken out
for a while (5 s, doubling to 2 min while it stays down) and then tried again.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

#: the typical answer at a window level this many times slower than every answer at the lowest level: a queue
HOLD_FACTOR = 1.5
#: ... and this many times the typical answer at the nearest level below
NEAR_FACTOR = 1.2
#: ... this many times their median: a deep queue, which shrinks the window
DELAY_FACTOR = 2.5
#: ... when the typical answer waited at least this long more (loopback noise and client CPU are no queue)
HOLD_FLOOR_S = 0.05
#: a deep queue shrinks the window only once answers take at least this long
DELAY_FLOOR_S = 0.5
#: an answer slower than this share of the timeout is a delay signal whatever its level
TIMEOUT_SHARE = 1 / 3
#: answers measured at a window level before slow start leaves it, or before it is compared with another
LEVEL_SAMPLES = 4
#: answers kept per window level (the newest)
LEVEL_KEEP = 16
#: share of the last answers (`LOSS_SPAN`, or the window if larger) that may fail (429, 5xx, a dropped
#: connection) before the window halves: a sporadic 2% is tolerated, a 25% halves it within ~25 answers
LOSS_SHARE = 0.05
LOSS_SPAN = 100


def level(window: int) -> int:
    """The window level of `window` requests in flight: 0 for 1, 1 for 2-3, 2 for 4-7, ..."""
    return max(0, int(window).bit_length() - 1)


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
        self._before = 1.0  # the window before the last decrease
        #: per kind of request, per window level: the latest latencies per unit of work
        self._levels: dict[Any, dict[int, collections.deque[float]]] = {}
        #: the latest outcomes, True for a loss: the loss share is read over the last window of them
        self._outcomes: collections.deque[bool] = collections.deque(maxlen=1024)
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
        return Slot(self, self.epoch, self.in_flight >= self.window, time.monotonic(), level(self.window))

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
        self._before = self.limit
        self.limit = max(1.0, self.limit * factor)
        self.epoch += 1
        self.decreases += 1

    def loss(self, slot: "Slot", timeout: bool = False) -> None:
        """A timeout (`timeout`), 429, 5xx or a dropped connection: halve the window (the last two
        only past the tolerated share of the last window of answers)."""
        self._outcomes.append(True)
        span = max(self.window, LOSS_SPAN)
        losses = sum(itertools.islice(reversed(self._outcomes), span))  # True counts 1
        if timeout or losses > LOSS_SHARE * span:
            self._decrease(slot, 0.5)
        self._recent.append(self.window)

    def _queue(self, kind: Any, slot: "Slot", work: float) -> str | None:
        """"deep" or "hold" when answers at the slot's level wait in a queue, judged against the
        lowest level measured (and slower than at the nearest level below, so that a lowest level
        measured fast by chance holds no window for ever); None when they do not, or too few tell."""
        levels = self._levels[kind]
        here = levels[slot.level]
        below = sorted(lv for lv, q in levels.items() if len(q) >= LEVEL_SAMPLES and lv < slot.level)
        if not below or len(here) < LEVEL_SAMPLES:
            return None
        typical, ref, near = statistics.median(here), levels[below[0]], levels[below[-1]]
        ref_typical = statistics.median(ref)
        if ((typical - ref_typical) * max(work, 1.0) < HOLD_FLOOR_S or typical < HOLD_FACTOR * max(ref)
                or typical < NEAR_FACTOR * statistics.median(near)):
            return None
        deep = typical >= DELAY_FACTOR * ref_typical and typical * max(work, 1.0) >= DELAY_FLOOR_S
        return "deep" if deep else "hold"

    def answered(self, slot: "Slot", kind: Any, work: float) -> None:
        """An answer after `time.monotonic() - slot.t0` seconds to a request of `kind` that asked
        for `work` units (tokens): grow the window, or shrink it if the answer waited in a queue."""
        latency = time.monotonic() - slot.t0
        self._outcomes.append(False)
        levels = self._levels.setdefault(kind, {})
        levels.setdefault(slot.level, collections.deque(maxlen=LEVEL_KEEP)).append(latency / max(work, 1.0))
        queue = self._queue(kind, slot, work)
        if queue == "deep" or latency > self.timeout * TIMEOUT_SHARE:
            self._decrease(slot, 0.8)
        elif queue == "hold":
            # (slow start, which doubles the window each round trip, ends on one such answer)
            self.slow_start = False  # more in flight would only wait in the server's queue
            self.holds += 1
        elif slot.full and self.limit < self.ceiling:  # grow only a window that was in use
            if not self.slow_start:  # per window of answers: half the way back to before the last decrease, at least one
                self.limit = min(float(self.ceiling), self.limit + max(1.0, (self._before - self.limit) / 2) / self.limit)
            elif len(levels.get(level(self.window), ())) >= LEVEL_SAMPLES:  # this level measured: on to the next
                self.limit = min(float(self.ceiling), self.limit + 1.0)
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
    level: int = 0  # the window's level when it went out

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
