"""The budget guard: `--max-total-tokens N` and `--max-cost USD` stop a run that points at a paid
API once its calls used the budget (exit 1, one line, every finished job kept; a resume with a
higher limit continues).

It admits calls, it does not only count them afterwards: a call goes out while what the run
directory's calls used, plus an estimate for each call still in flight, stays within the limit.
Counting only answered calls let a run whose calls all leave at once (20 one-call jobs, 32
workers) send every one of them before the first answer was counted (N-38). The estimate of a
call is the mean of its model's answered calls (of any model's, before its own first); until a
call of the run is answered, one goes at a time. A run so overshoots by about one call, as a run
that makes its calls one after another does.

Prices are USD per million tokens, given per model in its spec (`price_in=`, prompt tokens;
`price_out=`, reply tokens): execution settings, not identity. No built-in price list: a stale one
would misstate a budget, so `--max-cost` with a model whose spec gives no price is refused in one
line before anything is written.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Iterable

from oversight_bench.errors import BenchError

#: the spec options that give a model's prices (USD per million prompt / reply tokens)
PRICE_OPTIONS = ("price_in", "price_out")


class BudgetReached(BaseException):
    """The budget is spent: no further call is sent; the job in progress is left for a resume.
    A BaseException, so that no protocol's `except Exception` takes it for a failed call."""


@dataclass(frozen=True)
class Price:
    prompt: float  # USD per million prompt tokens
    reply: float  # USD per million reply tokens

    def cost(self, prompt_tokens: int, reply_tokens: int) -> float:
        return (prompt_tokens * self.prompt + reply_tokens * self.reply) / 1e6


def spec_price(options: dict[str, Any]) -> Price | None:
    """The price a spec's options give (both `price_in` and `price_out`), or None when they give none.
    One given without the other is a one-line error."""
    given = [k for k in PRICE_OPTIONS if options.get(k) is not None]
    if not given:
        return None
    if len(given) == 1:
        missing = next(k for k in PRICE_OPTIONS if k not in given)
        raise BenchError(f"{given[0]} is given without {missing}; expected both, in USD per million tokens "
                         f"(price_in: prompt tokens, price_out: reply tokens), e.g. price_in=2.5,price_out=10")
    return Price(*(float(options[k]) for k in PRICE_OPTIONS))


def check_prices(specs: Iterable[Any], max_cost: float | None) -> None:
    """With `--max-cost`: every model of the run has a price in its spec, else one line naming it
    (before anything is written)."""
    if max_cost is None:
        return
    for spec in specs:
        if spec_price(spec.options) is None:
            from oversight_bench.models import redact_spec

            raise BenchError(f"--max-cost {max_cost:g}: no price known for model {redact_spec(spec)!r}; expected "
                             f"price_in=USD,price_out=USD in its spec (per million prompt / reply tokens)")


@dataclass
class Budget:
    """The limits of one run (None: no limit) and the prices of its models by name."""

    max_tokens: int | None = None
    max_cost: float | None = None
    prices: dict[str, Price] = field(default_factory=dict)

    @property
    def limited(self) -> bool:
        return self.max_tokens is not None or self.max_cost is not None


@dataclass
class _Used:
    calls: int = 0
    tokens: float = 0.0
    cost: float = 0.0


class BudgetGuard:
    """Admits a run's calls while its budget lasts: `ticket = await guard.admit(model)` before a call is
    sent, then `guard.settle(ticket, prompt_tokens, reply_tokens)` when it was answered (also with
    0, 0 when it failed), so the tokens of every call in flight are reserved."""

    def __init__(self, budget: Budget, stored: Iterable[tuple[str, int, int]] = ()):
        """`stored`: (model name, prompt tokens, reply tokens) of the calls the run directory already holds."""
        self.budget = budget
        self.used = _Used()
        for name, ptoks, ctoks in stored:
            self.used.tokens += ptoks + ctoks
            self.used.cost += self._price(name).cost(ptoks, ctoks)
        self._answered: dict[str, _Used] = {}  # this run's answered calls per model: the estimates
        self._reserved = _Used()
        self._waiters: list[asyncio.Future] = []
        #: why the run stopped (one line), once it did
        self.reason: str | None = None

    def _price(self, name: str) -> Price:
        """A stored or running model's price: its own, one with the same identity (a resume may change
        execution settings), or else the dearest of the run's (never under-counted)."""
        prices = self.budget.prices
        if name in prices:
            return prices[name]
        from oversight_bench.models import identity_spec, parse_spec

        same = identity_spec(name)
        for other, price in prices.items():
            if identity_spec(other) == same:
                return price
        try:
            own = spec_price(parse_spec(name).options)
        except (BenchError, ValueError):
            own = None
        if own is not None:
            return own
        return Price(max((p.prompt for p in prices.values()), default=0.0), max((p.reply for p in prices.values()), default=0.0))

    def _estimate(self, name: str) -> _Used | None:
        """A call's expected tokens and cost: its model's mean, any model's before its first; None before any."""
        seen = self._answered.get(name)
        if seen is None or not seen.calls:
            seen = _Used()
            for u in self._answered.values():
                seen.calls, seen.tokens, seen.cost = seen.calls + u.calls, seen.tokens + u.tokens, seen.cost + u.cost
        if not seen.calls:
            return None
        return _Used(1, seen.tokens / seen.calls, seen.cost / seen.calls)

    def spent(self) -> str | None:
        """Why no further call may go (one line), or None while the budget lasts."""
        b, u = self.budget, self.used
        if self.reason is None:
            if b.max_tokens is not None and u.tokens >= b.max_tokens:
                self.reason = (f"stopped at --max-total-tokens {b.max_tokens}: the run's model calls used {int(u.tokens)} "
                               f"tokens (prompt + reply); finished jobs are saved: run the same command with a higher "
                               f"--max-total-tokens to continue")
            elif b.max_cost is not None and u.cost >= b.max_cost:
                self.reason = (f"stopped at --max-cost {b.max_cost:g}: the run's model calls cost ${u.cost:.4f} at the "
                               f"prices in the specs; finished jobs are saved: run the same command with a higher "
                               f"--max-cost to continue")
        return self.reason

    def _fits(self, est: _Used) -> bool:
        b, u, r = self.budget, self.used, self._reserved
        return ((b.max_tokens is None or u.tokens + r.tokens + est.tokens <= b.max_tokens)
                and (b.max_cost is None or u.cost + r.cost + est.cost <= b.max_cost * (1 + 1e-12)))

    async def admit(self, name: str) -> _Used | None:
        """Wait until a call of model `name` fits in the budget beside the calls in flight; raise
        BudgetReached once the budget is spent. Returns the ticket to `settle` (None: no limit)."""
        if not self.budget.limited:
            return None
        while True:
            if self.spent():
                raise BudgetReached(self.reason)
            est = self._estimate(name)
            if self._reserved.calls == 0 or (est is not None and self._fits(est)):
                break
            fut = asyncio.get_running_loop().create_future()  # woken when a call in flight ends
            self._waiters.append(fut)
            try:
                await fut
            finally:
                if fut in self._waiters:
                    self._waiters.remove(fut)
        ticket = est or _Used(1, 0.0, 0.0)
        self._reserved.calls += 1
        self._reserved.tokens += ticket.tokens
        self._reserved.cost += ticket.cost
        return ticket

    def settle(self, ticket: _Used | None, name: str, prompt_tokens: int = 0, reply_tokens: int = 0) -> None:
        """A call admitted with `ticket` ended: answered with these tokens, or failed (0, 0)."""
        if ticket is None:
            return
        self._reserved.calls -= 1
        self._reserved.tokens -= ticket.tokens
        self._reserved.cost -= ticket.cost
        cost = self._price(name).cost(prompt_tokens, reply_tokens)
        self.used.tokens += prompt_tokens + reply_tokens
        self.used.cost += cost
        if prompt_tokens or reply_tokens:
            seen = self._answered.setdefault(name, _Used())
            seen.calls, seen.tokens, seen.cost = seen.calls + 1, seen.tokens + prompt_tokens + reply_tokens, seen.cost + cost
        waiters, self._waiters = self._waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)


__all__ = ["Budget", "BudgetGuard", "BudgetReached", "Price", "PRICE_OPTIONS", "check_prices", "spec_price"]
