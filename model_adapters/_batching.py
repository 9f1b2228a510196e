"""A tiny asyncio batching queue for in-process engines (transformers, vLLM).

The runner fires many questions' calls concurrently; an engine is fastest when it gets them as
one batch. Callers `await queue.submit(item)`; items that arrive while the engine is busy (or
within `window_s` of the first) go into the next batch, which runs in a worker thread so the
event loop keeps scheduling. One batch runs at a time.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Sequence


class BatchQueue:
    def __init__(self, run_batch: Callable[[list[Any]], Sequence[Any]], *, max_batch: int | None = None, window_s: float = 0.005):
        self.run_batch = run_batch
        self.max_batch = max_batch
        self.window_s = window_s
        self._pending: list[tuple[Any, asyncio.Future]] = []
        self._drainer: asyncio.Task | None = None
        self.batch_sizes: list[int] = []  # for tests and stats

    async def submit(self, item: Any) -> Any:
        fut = asyncio.get_running_loop().create_future()
        self._pending.append((item, fut))
        if self._drainer is None or self._drainer.done():
            self._drainer = asyncio.create_task(self._drain())
        return await fut

    async def _drain(self) -> None:
        while self._pending:
            await asyncio.sleep(self.window_s)  # let concurrent callers join this batch
            cut = len(self._pending) if self.max_batch is None else self.max_batch
            batch, self._pending = self._pending[:cut], self._pending[cut:]
            batch = [(item, fut) for item, fut in batch if not fut.cancelled()]
            if not batch:
                continue
            self.batch_sizes.append(len(batch))
            try:
                results = await asyncio.to_thread(self.run_batch, [item for item, _ in batch])
                if len(results) != len(batch):
                    raise RuntimeError(f"batch engine returned {len(results)} results for {len(batch)} requests")
            except BaseException as exc:
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(exc)
                if not isinstance(exc, Exception):
                    raise
                continue
            for (_, fut), result in zip(batch, results):
                if not fut.done():
                    if isinstance(result, BaseException):
                        fut.set_exception(result)
                    else:
                        fut.set_result(result)


def finish_of(text: str, stop: Sequence[str] | None, completion_tokens: int, max_tokens: int) -> str:
    """Why a batched engine's row ended: "stop" at a stop string (cut by `truncate_at_stop`) or
    before the budget, "length" when it used the whole budget."""
    if stop and any(s and s in text for s in stop):
        return "stop"
    return "length" if completion_tokens >= max_tokens else "stop"


def truncate_at_stop(text: str, stop: Sequence[str] | None) -> str:
    """Cut `text` at the earliest stop string (engines that batch cannot stop per row)."""
    if not stop:
        return text
    cut = min((i for i in (text.find(s) for s in stop if s) if i >= 0), default=-1)
    return text if cut < 0 else text[:cut]


def normalise(values: dict[str, float], choices: Sequence[str]) -> list[float] | None:
    """Probabilities (not log) per choice -> normalised list; None when all are zero/missing."""
    raw = [max(0.0, float(values.get(c, 0.0))) for c in choices]
    total = sum(raw)
    if total <= 0:
        return None
    return [r / total for r in raw]


def choice_token_ids(tokenize: Callable[[str], list[int]], prompt: str, choices: Sequence[str],
                     bare: Callable[[str], list[int]] | None = None) -> list[int]:
    """The token id each choice gets right after `prompt` (e.g. "1" after "Answer: ").

    Read in context, because some tokenizers merge a digit with what precedes it; falls back to
    tokenizing the choice alone (with `bare`: no BOS). Every choice must be one token, or its probability is undefined.
    """
    base = tokenize(prompt)
    ids = []
    for c in choices:
        full = tokenize(prompt + c)
        if len(full) == len(base) + 1 and full[: len(base)] == base:
            ids.append(full[-1])
            continue
        alone = (bare or tokenize)(c)
        if len(alone) != 1:
            raise ValueError(f"choice {c!r} is not a single token for this tokenizer ({alone})")
        ids.append(alone[0])
    return ids


def softmax_over(logits: Sequence[float]) -> list[float]:
    """Softmax restricted to the given logits (the choices' next-token scores)."""
    import math

    top = max(logits)
    exps = [math.exp(x - top) for x in logits]
    total = sum(exps)
    return [e / total for e in exps]
