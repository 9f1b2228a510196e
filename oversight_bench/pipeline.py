"""The one pipeline behind `run`, `judge --from` and `elo`: each command is a `Plan` (see plans.py)
and `execute` takes every plan through the same steps:

    check output, specs and options -> models -> open store -> identity -> questions -> data identity
    -> capability check -> write identity, config, questions -> runner -> summary

Everything that can be refused is checked before the first write: a failed start leaves the
output folder as it was (a folder this start created is removed again).

A change to the pipeline is made here once; what differs between the commands lives in the plans.
"""

from __future__ import annotations

import abc
import asyncio
import shutil
import time
from pathlib import Path
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from oversight_bench.errors import BenchError
from oversight_bench.config import check_resumable
from oversight_bench.deviations import deviations
from oversight_bench.end_of_run import summarize
from oversight_bench.models import Model, build_model, check_spec, parse_spec, redact_spec, split_debias
from oversight_bench.protocol import Protocol, ProtocolOptions
from oversight_bench.provenance import provenance
from oversight_bench.questions import Question
from oversight_bench.registry import get_registry
from oversight_bench.scheduler import Scheduler, Stats
from oversight_bench.rundir.store import CONFIG_NAME, DB_NAME, LOCK_NAME, SharedCalls, Store

#: the stored settings a resumed run must share with the run it continues
IDENTITY_KEYS = ("kind", "judge", "judge_debias", "agent", "seed", "tasks", "protocols", "options", "source")
#: compared too where a plan stores them (cross-play's players)
OPTIONAL_IDENTITY_KEYS = ("debaters",)


@dataclass
class Outcome:
    stats: Stats
    summary: list[dict[str, Any]]
    skipped: list[dict[str, Any]]
    output: str
    #: settings that differ from the paper's (oversight_bench.deviations), printed with the summary
    deviations: list[str] = field(default_factory=list)


@dataclass
class Prepared:
    """What a plan's questions step gives the pipeline. `questions` feeds the plan's jobs (a list,
    or an iterator when a task streams); `held` are those in memory anyway, stored and checked
    before any call; `config` adds to the stored config what the questions decided."""

    questions: list[Question] | Iterator[Question]
    held: list[Question]
    config: dict[str, Any] = field(default_factory=dict)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    count: int | None = None
    #: tasks whose questions are not at hand (streamed) but show images
    image_tasks: set[str] = field(default_factory=set)
    few_shot_pool: dict[str, list[Question]] = field(default_factory=dict)
    #: task -> {data file: content hash} of the files each task read (part of the run's identity)
    data: dict[str, dict[str, str]] = field(default_factory=dict)
    #: task -> how its data differs from the paper's (`LoadResult.deviations`), declared with the run
    substitutions: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Cast:
    """The models of a run: the judge, the agent (None when the plan has none) and, in cross-play,
    each debater's (model, best_of_n) by name."""

    judge: Model
    agent: Model | None = None
    debaters: dict[str, tuple[Model, int]] = field(default_factory=dict)


class Plan(abc.ABC):
    """One command's part of the pipeline."""

    #: the stored config's `kind` and the progress bar's label
    kind: str
    desc: str
    output: str
    judge: str  # the judge spec as given (may carry debias=true)
    agent_name: str
    options: ProtocolOptions
    seed: int
    concurrency: int | None = None
    #: run directories whose stored calls are reused (`--cache-from`); not part of the identity
    cache_from: tuple[str, ...] = ()
    #: the protocols whose agent side runs (their needs are checked against the agent)
    protocols: list[Protocol] = []

    @abc.abstractmethod
    def identity(self) -> dict[str, Any]:
        """The config to store, holding every `IDENTITY_KEYS` field a resume compares but the judge's
        (`execute` adds `judge`, `judge_debias` and `deviations`)."""

    @abc.abstractmethod
    def questions(self, store: Store, prior: dict[str, Any], log: Callable[[str], None]) -> Prepared:
        """Load the questions (recording skipped rows in `store`); `prior` is the resumed run's config."""

    def model_specs(self) -> list[str]:
        """The specs of the models besides the judge, checked (`check_spec`) before anything is built."""
        return []

    def models(self, judge: Model, judge_text: str) -> Cast:
        return Cast(judge)

    @abc.abstractmethod
    def jobs(self, prepared: Prepared, store: Store, config: dict[str, Any]) -> tuple[Iterable, int | None]:
        """(protocol, job, stored turns or None) items and their number (None: unknown)."""


def execute(plan: Plan, *, progress: bool = True, log: Callable[[str], None] = print) -> Outcome:
    """Take `plan` through the pipeline; everything it writes goes to `plan.output`."""
    out = check_output(plan.output)
    if plan.concurrency is not None and plan.concurrency < 1:
        raise BenchError(f"--concurrency {plan.concurrency}: expected a whole number >= 1 (calls in flight per model)")
    judge_text, debias = split_debias(plan.judge)
    for spec_text in (judge_text, *plan.model_specs()):
        check_spec(spec_text)  # syntax, backend and every option, before anything is built or written
    judge_name = redact_spec(judge_text)  # the name never carries debias=...; the config says judge_debias
    config = plan.identity() | {"judge": judge_name, "judge_debias": debias}
    cast = plan.models(build_model(judge_text), judge_text)
    created = _first_missing(out)
    before = None if created is not None else {p.name for p in out.iterdir()}
    store: Store | None = None
    shared: SharedCalls | None = None
    started = False
    try:
        shared = SharedCalls(plan.cache_from, out) if plan.cache_from else None
        store = Store.open(out, write=True)
        prior = check_identity(store, config)
        prepared = plan.questions(store, prior, log)
        config.update(provenance(), **prepared.config)
        declare(config, prepared)
        check_data(store, prepared.data)
        uses_agent = any(p.uses_agent for p in plan.protocols)
        check_capabilities(cast.judge, cast.agent if uses_agent else None, debias, plan.protocols, prepared.held,
                           judge_name, plan.agent_name, plan.options, image_tasks=prepared.image_tasks,
                           debaters=cast.debaters)

        started = True  # every check passed: from here on the run writes
        store.write_identity(identity_of(config, prepared.data))
        store.write_config(config)
        for task, reasons in _rows_skipped(prepared.skipped).items():
            store.record_skipped(task, reasons)
        store.put_questions(prepared.held)

        runner = Scheduler(store, judge=cast.judge, agent=cast.agent, judge_name=judge_name, agent_name=plan.agent_name,
                        options=plan.options, seed=plan.seed, judge_debias=debias, concurrency=plan.concurrency,
                        few_shot_pool=prepared.few_shot_pool, protocols=all_protocols(), debaters=cast.debaters,
                        shared=shared)
        work, total = plan.jobs(prepared, store, config)
        skipped = prepared.skipped
        del prepared  # the jobs hold the only reference and let each question go once planned
        stats = _run(runner, work, total, progress, plan.desc, plan.concurrency)
        return Outcome(stats, summarize(store, judge_name), skipped, str(store.dir), config["deviations"])
    finally:
        if shared is not None:
            shared.close()
        if store is not None:
            store.close()
        if not started:
            _close_models(cast)
            _undo_start(out, created, before)


# -- before the first write --------------------------------------------------------------------------


def declare(config: dict[str, Any], prepared: Prepared) -> None:
    """Set `config["deviations"]` once the questions are loaded: the options decide some lines, the
    data others (which tasks ran, which sources the loaders substituted, with their counts)."""
    if prepared.substitutions:
        config["data_substitutions"] = prepared.substitutions
    config["deviations"] = deviations(config)


def check_output(output: Any) -> Path:
    """`--output` names a new folder, an empty one, or a run to resume; anything else is refused
    (an empty name would be the current folder; a folder of other files is no run)."""
    if output is None or not str(output).strip():
        raise BenchError("--output is empty; expected the run's folder (new, empty, or a run to resume)")
    path = Path(output)
    if path.exists() or path.is_symlink():
        if not path.is_dir():
            raise BenchError(f"--output {path} is not a folder; expected a new or empty folder, or a run to resume")
        names = _entries(path)
        if names and not names & {DB_NAME, CONFIG_NAME}:
            shown = ", ".join(sorted(names)[:3]) + (", ..." if len(names) > 3 else "")
            raise BenchError(f"--output {path} holds other files ({shown}) but no run; expected a new or empty folder, "
                             f"or a run directory to resume")
    return path


def _entries(path: Path) -> set[str]:
    """The names in a folder, a lock left by an earlier start aside."""
    try:
        return {p.name for p in path.iterdir()} - {LOCK_NAME}
    except FileNotFoundError:
        return set()


def _first_missing(path: Path) -> Path | None:
    """The outermost folder of `path` that does not exist yet (None: it exists)."""
    path = path.absolute()
    if path.exists():
        return None
    while not path.parent.exists() and path.parent != path:
        path = path.parent
    return path


def _undo_start(out: Path, created: Path | None, before: set[str] | None) -> None:
    """A start that failed before writing leaves the folder as it found it: a folder it created is
    removed; in one that existed, the store files and lock this start made are removed again."""
    if created is not None:
        shutil.rmtree(created, ignore_errors=True)
        return
    if before is None or not out.is_dir():
        return
    for p in out.iterdir():
        if p.name not in before and (p.name.startswith(DB_NAME) or p.name == LOCK_NAME):
            p.unlink(missing_ok=True)


def _close_models(cast: Cast) -> None:
    models = {id(m): m for m in (cast.judge, cast.agent, *(d[0] for d in cast.debaters.values())) if m}
    if not models:
        return

    async def close() -> None:
        for m in models.values():
            await m.aclose()

    try:
        asyncio.run(close())
    except Exception:  # noqa: BLE001 - the start's own error is the one to report
        pass


def _rows_skipped(skipped: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """The rows tasks skipped (a re-judging's "not re-judgeable" protocols are no task's rows)."""
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for sk in skipped:
        if sk.get("task") not in (None, "-"):
            out[sk["task"]][sk["reason"]] = sk["count"]
    return out


# -- the steps ---------------------------------------------------------------------------------------


def identity_of(config: dict[str, Any], data: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the store records as the run's identity: the settings a resume must share
    (`IDENTITY_KEYS`), the YAML tasks' versions and the data files each task read."""
    ident = {k: config.get(k) for k in IDENTITY_KEYS}
    ident.update({k: config[k] for k in (*OPTIONAL_IDENTITY_KEYS, "task_versions") if k in config})
    if data is not None:
        ident["data"] = data
    return ident


def check_identity(store: Store, config: dict[str, Any]) -> dict[str, Any]:
    """The stored config of a run being resumed ({} for a new one), refused if its settings differ
    from the identity recorded in the store (and from config.json, where there is one) or one of
    its YAML tasks changed (version or resolved YAML)."""
    old = store.read_config()
    if old is not None:
        check_resumable(store.dir, old)
    recorded = store.read_identity()
    if recorded is None and old is None:
        if store.holds_work():
            raise BenchError(f"{store.dir} holds records but neither config.json nor a recorded identity (a run from an "
                             f"earlier oversight-bench whose config.json was removed); its settings cannot be checked, "
                             f"so it cannot be resumed: use another --output")
        return {}
    for prev, where in ((recorded, "recorded in its store"), (old, "in its config.json")):
        if prev is not None:
            _compare(store.dir, prev, config, where)
    return old or {}


def _compare(directory: Path, old: dict[str, Any], config: dict[str, Any], where: str) -> None:
    for key in (*IDENTITY_KEYS, *(k for k in OPTIONAL_IDENTITY_KEYS if k in old or k in config)):
        if old.get(key) != config.get(key):
            raise BenchError(
                f"{directory} already holds a run with a different {key} ({old.get(key)!r} {where}, now {config.get(key)!r}); "
                f"use the same settings to resume, or another --output"
            )
    before, now = old.get("task_versions") or {}, config.get("task_versions") or {}
    for name, fp in now.items():
        was = before.get(name)
        if was is not None and was != fp:
            raise BenchError(
                f"task {name} changed since {directory} was started (version {was.get('version')!r} -> {fp.get('version')!r}, "
                f"YAML hash {was.get('sha256')} -> {fp.get('sha256')}); restore the task YAML, or use another --output"
            )


def check_data(store: Store, data: dict[str, dict[str, str]]) -> None:
    """Refuse a resume whose tasks read other data than the run was started with (another
    --data-dir, or changed files): its new questions would mix with the old ones."""
    recorded = (store.read_identity() or {}).get("data")
    if not isinstance(recorded, dict):
        return  # a new run, or one started before data was fingerprinted: nothing to hold it to
    for task in sorted(set(recorded) | set(data)):
        was, now = recorded.get(task) or {}, data.get(task) or {}
        if was == now:
            continue
        name = next(n for n in sorted(set(was) | set(now)) if was.get(n) != now.get(n))
        if name not in now:
            detail = f"{name} is no longer read"
        elif name not in was:
            detail = f"{name} is read now but was not"
        else:
            detail = f"{name} has other content (sha256 {str(was[name])[:12]}... -> {str(now[name])[:12]}...)"
        raise BenchError(f"task {task} reads other data than {store.dir} was started with ({detail}); resume with the "
                         f"same --data-dir and data files, or use another --output")


def task_versions(tasks: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """Each YAML task's version and resolved-YAML hash (tasks of other kinds have none)."""
    return {t.name: t.fingerprint for t in tasks if isinstance(getattr(t, "fingerprint", None), dict)}


def shared_model(judge: Model, judge_text: str, spec_text: str) -> Model:
    """The judge itself when `spec_text` names the same model, else a new one."""
    return judge if parse_spec(spec_text) == parse_spec(judge_text) else build_model(spec_text)


def check_capabilities(judge: Model, agent: Model | None, debias: bool, protocols: list[Protocol],
                       questions: list[Question], judge_name: str, agent_name: str, options=None,
                       image_tasks: set[str] = frozenset(), debaters: dict[str, tuple[Model, int]] | None = None) -> None:
    """Fail before any call when a protocol or task needs what a model lacks. `image_tasks`
    names tasks whose questions are not at hand (streamed) but show images; cross-play `debaters`
    are checked one by one, since each speaks through its own model."""
    if debias and not judge.capabilities.logprobs:
        raise BenchError(f"judge {judge_name} cannot give answer probabilities, which debias=true needs; drop debias or use a backend with logprobs")
    if options is not None and options.judge_mode == "probs" and not judge.capabilities.logprobs:
        raise BenchError(f"judge {judge_name} cannot give answer probabilities, which judge_mode probs reads its answer from; "
                         f"use judge_mode predict or a backend with logprobs")
    image_tasks = sorted({q.task for q in questions if q.images} | set(image_tasks))
    if image_tasks:
        if not judge.capabilities.images:
            raise BenchError(f"task {image_tasks[0]} shows images but judge {judge_name} is text-only; use an image-capable judge or drop the task")
        if agent is not None and any(p.uses_agent for p in protocols) and not agent.capabilities.images:
            raise BenchError(f"task {image_tasks[0]} shows images but agent {agent_name} is text-only; use an image-capable agent or drop the task")
    check_debaters(debaters or {}, image_tasks)
    for p in protocols:
        if agent is not None and p.uses_agent and p.agent_needs.multi_sample and not agent.capabilities.multi_sample:
            raise BenchError(f"protocol {p.name} needs n>1 samples but agent {agent_name} cannot sample several")
    if options is not None:
        if debias and options.judge_mode == "cot":
            raise BenchError("debias=true reads answer probabilities, which chain-of-thought judging does not give; use judge_mode predict or drop debias")
        if options.best_of_n > 1 and agent is not None and not agent.capabilities.multi_sample:
            raise BenchError(f"best_of_n={options.best_of_n} needs several samples per call but agent {agent_name} gives one; use best_of_n 1")


def check_debaters(debaters: dict[str, tuple[Model, int]], image_tasks: list[str]) -> None:
    """Each cross-play debater's own model must read the run's images and give its best-of-N samples."""
    for name, (model, best_of_n) in debaters.items():
        if image_tasks and not model.capabilities.images:
            raise BenchError(f"task {image_tasks[0]} shows images but debater {name} is text-only; use image-capable "
                             f"debaters or drop the task")
        if best_of_n > 1 and not model.capabilities.multi_sample:
            raise BenchError(f"debater {name} plays best-of-{best_of_n} but its model gives one sample per call; "
                             f"drop best_of_n from its spec")


def all_protocols() -> dict[str, Protocol]:
    reg = get_registry()
    return {n: reg.get("protocols", n) for n in reg.names("protocols")}


# -- the runner ----------------------------------------------------------------------------------


def _workers(models: list[Model | None], concurrency: int | None, n_jobs: int) -> int:
    """Jobs to interleave: enough to keep every model's in-flight bound busy, unless all the
    models prefer fewer (in-process backends that serialise their calls)."""
    distinct = list({id(m): m for m in models if m}.values())
    inflight = sum((concurrency or m.max_concurrency) for m in distinct)
    workers = min(n_jobs, 4 * inflight, 512)
    if distinct and all(m.max_jobs for m in distinct):
        workers = min(workers, max(m.max_jobs for m in distinct))
    return max(1, workers)


def _run(runner: Scheduler, work: Iterable, total: int | None, progress: bool, desc: str, concurrency: int | None) -> Stats:
    """Run the jobs (total None: a stream of unknown length), with a progress bar or without."""
    workers = _workers([*runner.models.values(), *(d[0] for d in runner.debaters.values())], concurrency,
                       total if total is not None else 1 << 30)
    if not progress:
        return asyncio.run(_drive(runner, work, total, workers, lambda s: None))
    from tqdm import tqdm

    bar = tqdm(total=total, desc=desc, unit="job", dynamic_ncols=True)
    last = [0.0]

    def draw(s: Stats) -> None:
        bar.n = s.jobs_done + s.jobs_skipped + s.jobs_failed
        counts = dict(calls=s.calls, cached=s.cache_hits, invalid=s.invalid, failed=s.jobs_failed,
                      retries=s.retries)
        bar.set_postfix({k: str(v) for k, v in counts.items()}, refresh=False)  # str: no "1e+4"
        bar.refresh()

    def on_progress(s: Stats) -> None:
        # a redraw costs about as much CPU as a whole job: ten a second is plenty
        now = time.monotonic()
        if now - last[0] >= 0.1:
            last[0] = now
            draw(s)

    try:
        stats = asyncio.run(_drive(runner, work, total, workers, on_progress))
        draw(stats)
        return stats
    finally:
        bar.close()


async def _drive(runner: Scheduler, work, total, workers, on_progress) -> Stats:
    try:
        return await runner.run(work, total=total, workers=workers, on_progress=on_progress)
    finally:
        for m in {id(m): m for m in (*runner.models.values(), *(d[0] for d in runner.debaters.values())) if m}.values():
            await m.aclose()
