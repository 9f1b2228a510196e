"""The commands behind `oversight-bench run`, `judge --from` and `elo`: each makes its plan
(plans.py) and hands it to the one pipeline (pipeline.py). Also `export`."""

from __future__ import annotations

import json
from typing import Any, Callable

from oversight_bench.config import EloConfig, RunConfig
from oversight_bench.pipeline import Outcome, execute
from oversight_bench.plans import CrossplayPlan, JudgePlan, RunPlan
from oversight_bench.rundir.store import Store


def run_eval(config: RunConfig, *, progress: bool = True, log: Callable[[str], None] = print) -> Outcome:
    """Run (or resume) the evaluation `config` describes."""
    return execute(RunPlan(config), progress=progress, log=log)


def rejudge(source: str, judge_spec: str, output: str, *, progress: bool = True, concurrency: int | None = None,
            option_overrides: dict[str, Any] | None = None, only: set[str] | None = None,
            cache_from: tuple[str, ...] = ()) -> Outcome:
    """Judge the stored transcripts of `source` (`only`: these job keys) with a new judge: judge calls only."""
    plan = JudgePlan(source, judge_spec, output, concurrency=concurrency, option_overrides=option_overrides, only=only,
                     cache_from=cache_from)
    return execute(plan, progress=progress)


def run_crossplay(config: EloConfig, output: str, *, progress: bool = True, log: Callable[[str], None] = print) -> Outcome:
    """One-round simultaneous debates (§4.3, Appendix E): the cross-play and self-play games
    `crossplay.plan_games` draws, each task contributing equally (`config.games()` cross-play games)."""
    plan = CrossplayPlan(config.debaters, config.judge, config.tasks, config.games(), output, seed=config.seed,
                         data_dir=config.data_dir, concurrency=config.concurrency, selfplay=config.selfplay)
    plan.cache_from = tuple(config.cache_from)
    return execute(plan, progress=progress, log=log)


def export_jsonl(directory: str, write: Callable[[str], None]) -> int:
    """Every record of a run as JSONL (kind = call | turn | decision), secrets redacted; returns the count."""
    from oversight_bench.redact import redact_text

    emit = write
    write = lambda line: emit(redact_text(line))  # noqa: E731 - also runs written before redaction existed
    store = Store.open(directory)
    n = 0
    try:
        cfg = store.read_config() or {}
        for call in store.iter_calls():
            call.update(judge=cfg.get("judge"), agent=cfg.get("agent"))
            write(json.dumps(call, ensure_ascii=False))
            n += 1
        for rec in store.iter_records():
            write(json.dumps(rec, ensure_ascii=False))
            n += 1
    finally:
        store.close()
    return n
