"""The commands behind `oversight-bench run`, `judge --from` and `elo`: each makes its plan
(plans.py) and hands it to the one pipeline (pipeline.py); `elo` then fits the ratings
(`fit_elo`), so its command only parses and prints. Export lives with the run directory
(`rundir.export_jsonl`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from oversight_bench.config import EloConfig, RunConfig
from oversight_bench.errors import BenchError
from oversight_bench.models import Spec
from oversight_bench.protocol_options import CommonOptions
from oversight_bench.redact import redact_text
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


def list_lines(what: str, data_dir: str | None = None, include_path: tuple[str, ...] = (), *,
               warn: Callable[[str], None] = print) -> list[str]:
    """What `list WHAT` prints, a line each: tasks, protocols, models or plugins with their package and
    version (suites: `suites.list_lines`, which runs above this layer's workflows). `warn`: where a
    plugin's broken entry or failing install check is said (a line each)."""
    from oversight_bench.registry import get_registry

    if what == "tasks":
        return _task_lines(data_dir, include_path, warn)
    if what == "models":
        return _model_lines(warn)
    if what == "protocols":
        return _protocol_lines(warn)
    reg = get_registry()
    if what == "plugins":
        wide = [max((len(x) for x in col), default=0) for col in zip(*((p.name, p.package, p.version) for p in reg.plugins))]
        w_name, w_pkg, w_ver = (wide + [0, 0, 0])[:3]
        lines = []
        for p in reg.plugins:
            state = f"BROKEN: {p.error}" if p.error else ", ".join(p.hooks) or "(no hooks)"
            lines.append(f"{p.name:<{w_name}}  {p.package:<{w_pkg}}  {p.version:<{w_ver}}  {state}")
            lines += [f"{'':<{w_name}}  SKIPPED: {line}" for line in p.skipped]  # a clash: the name stays with the first package
        return lines
    return [f"{name:<22} {reg.entries[what][name].package} {reg.entries[what][name].version}" for name in reg.names(what)]


def _protocol_lines(warn: Callable[[str], None]) -> list[str]:
    """One line per protocol: name, package, version and description; a protocol outside the paper
    says so, and one derived from others' transcripts (`Protocol.derived_from`) how to run it. One
    whose attributes raise is listed BROKEN (`registry.listed`)."""
    from oversight_bench.registry import get_registry, listed

    reg = get_registry()

    def line(name: str, e) -> str:
        p = e.obj
        notes = ["outside the paper"] if getattr(p, "outside_paper", "") else []
        if getattr(p, "derived_from", ()):
            notes.append(f"judge --from RUN --as {name} (RUN: stored {', '.join(p.derived_from)})")
        note = f"[{'; '.join(notes)}] " if notes else ""
        package = f"{e.package} {e.version}"
        return f"{name:<22} {package:<28} {note}{getattr(p, 'description', '')}".rstrip()

    return [listed("protocols", e, lambda: line(name, e), warn)
            for name in reg.names("protocols") for e in [reg.entries["protocols"][name]]]


def _size(n: int | None) -> str:
    if not n:
        return "–"
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


def _model_lines(warn: Callable[[str], None]) -> list[str]:
    """The backends (`backend:model` specs), then the models plugins name (`--judge NAME`) with the
    roles they are the default for and, where their plugin says, install state and size."""
    from oversight_bench.registry import get_registry, listed

    reg = get_registry()
    lines = ["backends (a model is backend:model[,key=value...]):"]
    for name in reg.names("models"):
        e = reg.entries["models"][name]
        lines.append(f"  {name:<20} {e.package} {e.version}")
    named = reg.entries["model_names"]
    if not named:
        return lines + ["models by name: none declared by the installed plugins"]
    lines.append("models by name (--judge NAME, --agent NAME):")
    lines.append(f"  {'name':<20} {'spec':<30} {'default':<8} {'size':>8}  state")

    def line(name: str, m) -> str:
        status = None
        if m.status is not None:
            try:
                status = m.status()
            except Exception as exc:  # noqa: BLE001 - a plugin's broken check must not hide the others
                warn(f"warning: {name}: its plugin could not tell its install state ({redact_text(exc)})")
        if status is None:
            state = "–"
        else:
            state = (status.detail or "installed") if status.installed else "NOT INSTALLED" + \
                (f": {status.detail}" if status.detail else "")
        size = _size(status.size_bytes if status else None)
        return f"  {name:<20} {m.spec:<30} {','.join(m.default_for) or '-':<8} {size:>8}  {state}"

    return lines + ["  " + listed("model_names", e, lambda: line(name, e.obj).removeprefix("  "), warn, width=20)
                    for name in reg.names("model_names") for e in [named[name]]]


def _task_lines(data_dir: str | None, include_path: tuple[str, ...], warn: Callable[[str], None]) -> list[str]:
    """Each task with its type, the questions its source holds on this data (what `--limit` samples
    from), the source, and whether a bare `run` uses it. Reading each source takes seconds, not a run.
    A task that raises while its line is made is listed BROKEN (`registry.listed`)."""
    from oversight_bench.registry import Entry, get_registry, listed
    from oversight_bench.sources import CountDeferred, counting_only
    from oversight_bench.tasks import data_dir as find_data_dir, resolve_tasks

    folder = find_data_dir(data_dir)
    reg = get_registry()
    lines = [f"{'task':<18} {'type':<11} {'questions':>9}  {'source':<10} {'default':<7} package",]
    notes = []

    def line(task, package: str) -> str:
        count, source = "–", "python"
        choose, available = getattr(task, "choose_source", None), getattr(task, "available", None)
        try:
            if choose is not None:
                source = choose(folder)
            if source == "hub":
                notes.append(f"{task.name}: read from the hub on first run (not downloaded to count it here)")
            elif available is not None:
                with counting_only():  # a loader that would run minutes of work says so instead
                    count = str(available(folder))
            else:
                notes.append(f"{task.name}: a Python task; it does not say how many questions it holds")
        except CountDeferred as exc:
            notes.append(f"{task.name}: {' '.join(str(exc).splitlines())}")
        except BenchError as exc:
            source = "missing"
            notes.append(f"{task.name}: {' '.join(str(exc).splitlines())}")
        default = "yes" if getattr(task, "in_default_run", False) else ""
        return f"{task.name:<18} {task.task_type:<11} {count:>9}  {source:<10} {default:<7} {package}"

    for task in resolve_tasks(["all"], list(include_path)):  # the paper's order, then by name
        entry = reg.entries["tasks"].get(task.name) or Entry(task.name, task, f"{getattr(task, 'path', '')}", "")
        package = f"{entry.package} {entry.version}".strip()
        lines.append(listed("tasks", entry, lambda: line(task, package), warn, width=18))
    lines.append(f"questions: convertible questions in {folder or 'no data folder (--data-dir or $OVERSIGHT_BENCH_DATA)'}; "
                 f"a run samples --limit of them per task (default: the task's sample size, 128)")
    return lines + notes
