"""The commands behind `oversight-bench run`, `judge --from` and `elo`: each makes its plan
(plans.py) and hands it to the one pipeline (pipeline.py); `elo` then fits the ratings
(`fit_elo`), so its command only parses and prints. Export lives with the run directory
(`rundir.export_jsonl`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from oversight_bench.config import EloConfig, RunConfig
from oversight_bench.models import Spec
from oversight_bench.protocol_options import CommonOptions
from oversight_bench.pipeline import Outcome, execute
from oversight_bench.plans import CrossplayPlan, JudgePlan, RunPlan
from oversight_bench.rundir import StoredRun, read_run


def run_eval(config: RunConfig, *, progress: bool = True, log: Callable[[str], None] = print) -> Outcome:
    """Run (or resume) the evaluation `config` describes."""
    return execute(RunPlan(config), progress=progress, log=log)


def rejudge(source: str | StoredRun, judge_spec: Spec | str, output: str, *, progress: bool = True,
            concurrency: int | None = None, option_overrides: dict[str, Any] | None = None,
            only: set[str] | None = None, cache_from: tuple[str, ...] = (), as_protocol: str | None = None,
            max_total_tokens: int | None = None, max_cost: float | None = None,
            options: CommonOptions | None = None) -> Outcome:
    """Judge the stored transcripts of `source` (a run directory, or one already read; `only`: these
    job keys) with a new judge: judge calls only. `as_protocol`: judge them as that protocol, one
    derived from theirs (`Protocol.derived_from`), e.g. a debate's verified quotes alone. `options`: the
    judging's options where the caller already made them (`option_overrides` on the source's)."""
    plan = judge_plan(source, judge_spec, output, concurrency=concurrency, option_overrides=option_overrides, only=only,
                      cache_from=cache_from, as_protocol=as_protocol, max_total_tokens=max_total_tokens,
                      max_cost=max_cost, options=options)
    return execute(plan, progress=progress)


def judge_plan(source: str | StoredRun, judge_spec: Spec | str, output: str, *, concurrency: int | None = None,
               option_overrides: dict[str, Any] | None = None, only: set[str] | None = None,
               cache_from: tuple[str, ...] = (), as_protocol: str | None = None, max_total_tokens: int | None = None,
               max_cost: float | None = None, options: CommonOptions | None = None) -> JudgePlan:
    """`rejudge`'s plan, not yet run: a caller with checks of its own between (`judge --suite`) makes it
    first, then runs it with `pipeline.execute`."""
    stored = source if isinstance(source, StoredRun) else read_run(source)
    plan = JudgePlan(stored, judge_spec, output, concurrency=concurrency, option_overrides=option_overrides, only=only,
                     cache_from=cache_from, as_protocol=as_protocol, options=options)
    plan.max_total_tokens, plan.max_cost = max_total_tokens, max_cost  # the budget guard: not identity
    return plan


def run_crossplay(config: EloConfig, output: str, *, progress: bool = True, log: Callable[[str], None] = print) -> Outcome:
    """One-round simultaneous debates (§4.3, Appendix E): the cross-play and self-play games
    `crossplay.plan_games` draws, each task contributing equally (`config.games()` cross-play games)."""
    plan = CrossplayPlan(config.debaters, config.judge, config.tasks, config.games(), output, seed=config.seed,
                         data_dir=config.data_dir, concurrency=config.concurrency, selfplay=config.selfplay)
    plan.cache_from = tuple(config.cache_from)
    plan.max_total_tokens, plan.max_cost = config.max_total_tokens, config.max_cost  # the budget guard: not identity
    return execute(plan, progress=progress, log=log)


def elo_sources(config: EloConfig, dirs: list[str]) -> list[str]:
    """The stored cross-play runs `elo` reads (`dirs`, then `--from`); its output is never inside one."""
    from oversight_bench.rundir import refuse_output_inside

    sources = list(dirs)
    refuse_output_inside(config.output, sources + list(config.cache_from), "elo")
    return sources


def play_elo_games(config: EloConfig, *, progress: bool = True, log: Callable[[str], None] = print) -> tuple[Outcome, str]:
    """The new cross-play and self-play debates `config` asks for, into OUTPUT/crossplay: the outcome
    and the run directory they are stored in."""
    crossplay_dir = str(Path(config.output) / "crossplay")
    return run_crossplay(config, crossplay_dir, progress=progress, log=log), crossplay_dir


def fit_elo(config: EloConfig, sources: list[str]) -> dict[str, Any]:
    """Elo of the debaters of the cross-play runs `sources` (`analysis.elo`), with how the fit differs
    from the paper's; written as OUTPUT/elo.json and OUTPUT/fig4_elo.png."""
    from oversight_bench.analysis.elo import elo_from_store
    from oversight_bench.analysis.report import _clean
    from oversight_bench.render.figures import fig_elo
    from oversight_bench.deviations import elo_prior_deviation
    from oversight_bench.errors import BenchError

    if not sources:
        raise BenchError("elo: no cross-play runs; expected run directories (DIR... or --from DIR) or --debaters/--judge/--tasks")
    res = _clean(elo_from_store(sources, scale=config.scale, n_bootstrap=config.bootstrap, prior_games=config.prior_games))
    line = elo_prior_deviation(config.prior_games)  # how this fit differs from App. E's (the games' own: their config)
    res["deviations"] = [line] if line else []
    out = Path(config.output)
    out.mkdir(parents=True, exist_ok=True)
    (out / "elo.json").write_text(json.dumps(res, indent=1))
    fig_elo(res, out / "fig4_elo.png")
    return res
