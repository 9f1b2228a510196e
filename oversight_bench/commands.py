"""The commands behind `oversight-bench run`, `judge --from` and `elo`: each makes its plan
(plans.py) and hands it to the one pipeline (pipeline.py). Export lives with the run directory
(`rundir.export_jsonl`)."""

from __future__ import annotations

from typing import Any, Callable

from oversight_bench.config import RunConfig
from oversight_bench.pipeline import Outcome, execute
from oversight_bench.plans import CrossplayPlan, JudgePlan, RunPlan
from oversight_bench.rundir import StoredRun, read_run


def run_eval(config: RunConfig, *, progress: bool = True, log: Callable[[str], None] = print) -> Outcome:
    """Run (or resume) the evaluation `config` describes."""
    return execute(RunPlan(config), progress=progress, log=log)


def rejudge(source: str | StoredRun, judge_spec: str, output: str, *, progress: bool = True,
            concurrency: int | None = None, option_overrides: dict[str, Any] | None = None,
            only: set[str] | None = None, cache_from: tuple[str, ...] = ()) -> Outcome:
    """Judge the stored transcripts of `source` (a run directory, or one already read; `only`: these
    job keys) with a new judge: judge calls only."""
    stored = source if isinstance(source, StoredRun) else read_run(source)
    plan = JudgePlan(stored, judge_spec, output, concurrency=concurrency, option_overrides=option_overrides, only=only,
                     cache_from=cache_from)
    return execute(plan, progress=progress)


def run_crossplay(debaters: list[str], judge_spec: str, task_names: list[str], pairings: int, output: str, *,
                  seed: int = 0, data_dir: str | None = None, progress: bool = True, concurrency: int | None = None,
                  log: Callable[[str], None] = print, selfplay: int | None = None) -> Outcome:
    """One-round simultaneous debates (§4.3, Appendix E): the cross-play and self-play games
    `crossplay.plan_games` draws, each task contributing equally, about `pairings` cross-play games
    (`selfplay` questions per task for self-play; None: the default, as many games as cross-play)."""
    plan = CrossplayPlan(debaters, judge_spec, task_names, pairings, output, seed=seed, data_dir=data_dir,
                         concurrency=concurrency, selfplay=selfplay)
    return execute(plan, progress=progress, log=log)
