"""The one pipeline behind every command that writes a run directory (`run`, `judge --from`,
`judge --suite`, `elo`, the importers, the human study): each is a `Plan` (see plans.py) and
`execute` takes every plan through the same steps:

    check output, judge tool, specs and options -> models -> open the run directory -> identity
    -> questions -> data identity -> capability check -> write identity, config, questions -> jobs
    -> summary

Each check has one place: the judge tool's and the models' options here in `start` (the model specs
the plan parsed once are checked once, and the same objects are built), the capabilities in
`check_capabilities`.

`start` is every step before the jobs; the human study starts its plan once and then judges item by
item as people answer. Everything that can be refused is checked before the first write: a failed
start leaves the output folder as it was (`rundir.WritableRun`).

A change to the pipeline is made here once; what differs between the commands lives in the plans.
"""

from __future__ import annotations

import abc
import asyncio
import math
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from oversight_bench.budget import check_prices
from oversight_bench.errors import BenchError
from oversight_bench.deviations import deviations
from oversight_bench.end_of_run import summarize
from oversight_bench.judge_tools import JudgeTool, check_judge_tool, tool_provenance
from oversight_bench.models import Model, Spec, build_model, check_spec, judge_spec, redact_spec
from oversight_bench.protocol import Protocol
from oversight_bench.protocol_options import CommonOptions
from oversight_bench.provenance import provenance
from oversight_bench.questions import Question
from oversight_bench.registry import get_registry
from oversight_bench.scheduler import Scheduler, Stats
from oversight_bench.rundir import SharedCalls, Store, WritableRun, check_output, identity_of, refuse_output_inside


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
    #: the judge's spec, parsed once by the plan (`models.judge_spec`: debias=true taken off into
    #: `Spec.debias`; a plugin's plan may give the text); a plain label where `model_judge` is off
    judge: Spec | str
    agent_name: str
    options: CommonOptions
    seed: int
    concurrency: int | None = None
    #: `--max-total-tokens`: the run stops once its stored calls used this many tokens (None: no limit)
    max_total_tokens: int | None = None
    #: `--max-cost`: ... once they cost this many USD at the prices in the specs (None: no limit)
    max_cost: float | None = None
    #: run directories whose stored calls are reused (`--cache-from`); not part of the identity
    cache_from: tuple[str, ...] = ()
    #: the protocols whose agent side runs (their needs are checked against the agent)
    protocols: list[Protocol] = []
    #: False: the judge is no model spec (an import's recorded judges, the human study's people), so the
    #: pipeline checks and builds no model; the plan brings what it calls
    model_judge: bool = True
    #: True: refuse an output that already holds a run (nothing to resume)
    fresh_output: bool = False

    def check(self) -> None:
        """What the plan knows is wrong before anything is written (an import's records): one line."""

    @abc.abstractmethod
    def identity(self) -> dict[str, Any]:
        """The config to store, holding every `rundir.IDENTITY_KEYS` field a resume compares but the
        judge's (`execute` adds `judge`, `judge_debias` and `deviations`)."""

    @abc.abstractmethod
    def questions(self, store: Store, prior: dict[str, Any], log: Callable[[str], None]) -> Prepared:
        """Load the questions (recording skipped rows in `store`); `prior` is the resumed run's config."""

    def read_dirs(self) -> list[str]:
        """The run directories this plan reads (`--cache-from`, a re-judged source): its output is never inside one."""
        return list(self.cache_from)

    def model_specs(self) -> list[Spec]:
        """The specs of the models besides the judge, parsed once by the plan and checked (`check_spec`)
        by `start` before anything is built; `models` builds these same objects."""
        return []

    def models(self, judge: Model, judge_spec: Spec) -> Cast:
        return Cast(judge)

    def judged_tasks(self) -> Iterable[str]:
        """The tasks whose questions this plan's jobs judge, known before any question loads: the run's
        judge tool (`options.judge_tool`) must support each (`judge_tool`). Asked only when the options
        name a tool."""
        raise BenchError(f"judge tool {self.options.judge_tool!r}: {self.desc} cannot run judge tools")

    def judge_tool(self) -> JudgeTool | None:
        """The judge tool the options name (None: none), checked against `judged_tasks` once, here
        (`check_judge_tool`): `start` asks, and so may a caller that must know sooner (`judge --suite`,
        before it builds the judge for its context check); both get this one check's tool."""
        if "_judge_tool" not in self.__dict__:
            name = self.options.judge_tool
            self._judge_tool = check_judge_tool(name, self.judged_tasks()) if name else None
        return self._judge_tool

    @abc.abstractmethod
    def jobs(self, prepared: Prepared, store: Store, config: dict[str, Any]) -> tuple[Iterable, int | None]:
        """(protocol, job, stored turns or None) items and their number (None: unknown)."""

    def deviations(self, config: dict[str, Any]) -> list[str]:
        """The settings of this run that differ from the paper's (`oversight_bench.deviations`)."""
        return deviations(config)

    def run(self, started: "Started", progress: bool) -> Stats:
        """The jobs: made by the scheduler, with every call cached and every finished job written."""
        runner = started.runner()
        work, total = self.jobs(started.take_prepared(), started.store, started.config)
        return _run(runner, work, total, progress, self.desc, self.concurrency)


@dataclass
class Started:
    """A plan past every check, its run directory's identity, config and questions written."""

    plan: Plan
    run_dir: WritableRun
    config: dict[str, Any]
    judge_name: str
    debias: bool
    cast: Cast | None
    #: the run's judge tool, checked once by `start` (None: none)
    tool: JudgeTool | None
    shared: SharedCalls | None
    skipped: list[dict[str, Any]]
    prepared: Prepared | None

    @property
    def store(self) -> Store:
        return self.run_dir.store

    def take_prepared(self) -> Prepared:
        """The loaded questions, handed over once: the jobs then hold the only reference and let each
        question go once planned."""
        prepared, self.prepared = self.prepared, None
        return prepared

    def runner(self, cls: type[Scheduler] = Scheduler, **models: Any) -> Scheduler:
        """The scheduler of the plan's jobs; `models` (judge, agent, judge_name) stand in for the cast's,
        as in the human study, whose judges are people."""
        plan, cast = self.plan, self.cast or Cast(None)
        kw = {"judge": cast.judge, "agent": cast.agent, "judge_name": self.judge_name, **models}
        return cls(self.store, agent_name=plan.agent_name, options=plan.options, seed=plan.seed,
                   judge_debias=self.debias, concurrency=plan.concurrency, max_total_tokens=plan.max_total_tokens,
                   max_cost=plan.max_cost,
                   few_shot_pool=self.prepared.few_shot_pool if self.prepared else {}, protocols=all_protocols(),
                   debaters=cast.debaters, shared=self.shared, judge_tool=self.tool, **kw)

    def close(self) -> None:
        try:
            if self.shared is not None:
                self.shared.close()
        finally:
            self.run_dir.close()


def execute(plan: Plan, *, progress: bool = True, log: Callable[[str], None] = print) -> Outcome:
    """Take `plan` through the pipeline; everything it writes goes to `plan.output`."""
    t0 = time.monotonic()
    started = start(plan, log=log)
    try:
        stats = plan.run(started, progress)
        if stats.traffic:  # what each server-backed model sent, kept with the run (the latest run's)
            started.config["traffic"] = stats.traffic
            started.store.write_config(started.config)
        summary = summarize(started.store, started.judge_name)
        # (a model-judged run's store holds that judge's decisions alone; an import's, its recorded judges')
        write_run_files(started, stats, t0, summary if plan.model_judge else None)
        return Outcome(stats, summary, started.skipped, str(started.store.dir), started.config["deviations"])
    finally:
        started.close()


def write_run_files(started: Started, stats: Stats | None = None, t0: float | None = None,
                    summary: list[dict[str, Any]] | None = None) -> None:
    """results.json + samples.jsonl, derived from the whole store (so a resume rewrites them whole):
    at the end of `execute`, and when a plan that judges as it goes (the human study) stops.
    `summary`: the cells, where the caller has them (default: every judge's in the store)."""
    from oversight_bench.rundir.results_file import write_results

    from oversight_bench.errors import disk_full, disk_full_error

    started.store.flush()  # every record committed before the files derived from them are written
    try:
        write_results(started.store, started.config, summarize(started.store) if summary is None else summary,
                      stats or Stats(), started.skipped, time.monotonic() if t0 is None else t0)
    except Exception as exc:  # OSError, or SQLite's own full-disk errors while summarizing
        if disk_full(exc, started.store.dir):
            raise disk_full_error(started.store.dir) from None
        raise


def start(plan: Plan, *, log: Callable[[str], None] = print) -> Started:
    """Every step before the jobs. A start refused at any step has written nothing."""
    check_output(plan.output, fresh=plan.fresh_output, what=plan.desc)
    refuse_output_inside(plan.output, plan.read_dirs(), plan.kind)
    plan.check()
    if plan.concurrency is not None and plan.concurrency < 1:
        raise BenchError(f"--concurrency {plan.concurrency}: expected a whole number >= 1 (calls in flight per model)")
    if plan.max_total_tokens is not None and plan.max_total_tokens < 1:
        raise BenchError(f"--max-total-tokens {plan.max_total_tokens} is not valid; expected a whole number of tokens >= 1")
    if plan.max_cost is not None and not (math.isfinite(plan.max_cost) and plan.max_cost > 0):
        raise BenchError(f"--max-cost {plan.max_cost} is not valid; expected a number of US dollars > 0")
    # the plan's tasks (a run's before any loads); the scheduler runs the tool this check returns
    tool = plan.judge_tool()
    if plan.model_judge:
        judge = judge_spec(plan.judge)  # the plan's Spec as it is (a plugin plan's text: parsed here)
        for spec in (judge, *plan.model_specs()):
            check_spec(spec)  # backend and every option, once, before anything is built or written
        judge_name, debias = redact_spec(judge), judge.debias  # the name never carries debias=...; the config says judge_debias
    else:
        judge, debias, judge_name = None, False, plan.judge
    config = plan.identity() | {"judge": judge_name, "judge_debias": debias}
    cast = plan.models(build_model(judge), judge) if judge is not None else None
    if cast is not None:  # --max-cost: every model that makes calls has a price in its spec
        check_prices([m.spec for m in (cast.judge, cast.agent, *(d[0] for d in cast.debaters.values())) if m is not None],
                     plan.max_cost)
    if cast is not None and (debias or plan.options.judge_mode == "probs"):
        _check_ready(cast, log)  # a server that gives no probabilities: one line, before anything is written
    run_dir: WritableRun | None = None
    shared: SharedCalls | None = None
    try:
        shared = SharedCalls(plan.cache_from, plan.output) if plan.cache_from else None
        run_dir = WritableRun(plan.output, fresh=plan.fresh_output, what=plan.desc)
        prior = run_dir.check_identity(config)
        changed = run_dir.keep_names(config)  # other execution settings only: the run keeps its models' names
        if changed:
            judge_name, plan.agent_name = config["judge"], config.get("agent", plan.agent_name)
            log(f"resuming with other execution settings ({'; '.join(changed)}): they change no output")
        prepared = plan.questions(run_dir.store, prior, log)
        config.update(provenance(), **prepared.config)
        if tool is not None:  # recorded: which tool, from which package
            config["judge_tool"] = tool_provenance(tool)
        declare(plan, config, prepared)
        run_dir.check_data(prepared.data)
        if cast is not None:
            uses_agent = any(p.uses_agent for p in plan.protocols)
            check_capabilities(cast.judge, cast.agent if uses_agent else None, debias, plan.protocols, prepared.held,
                               judge_name, plan.agent_name, plan.options, image_tasks=prepared.image_tasks,
                               debaters=cast.debaters)
        run_dir.begin(config, identity_of(config, prepared.data), skipped=_rows_skipped(prepared.skipped),
                      questions=prepared.held)
        return Started(plan, run_dir, config, judge_name, debias, cast, tool, shared, prepared.skipped, prepared)
    except BaseException:
        if shared is not None:
            shared.close()
        if run_dir is not None:
            run_dir.close()
        if cast is not None:
            _close_models(cast)
        raise


# -- before the first write --------------------------------------------------------------------------


def declare(plan: Plan, config: dict[str, Any], prepared: Prepared) -> None:
    """Set `config["deviations"]` once the questions are loaded: the options decide some lines, the
    data others (which tasks ran, which sources the loaders substituted, with their counts)."""
    if prepared.substitutions:
        config["data_substitutions"] = prepared.substitutions
    config["deviations"] = plan.deviations(config)


def _check_ready(cast: Cast, log: Callable[[str], None]) -> None:
    """The judge's `Model.check_ready` for probabilities (a probe of its server, for `openai:`)."""
    async def probe() -> str | None:
        try:
            return await cast.judge.check_ready(probs=True)
        finally:
            await cast.judge.aclose()  # its clients belong to this event loop

    try:
        note = asyncio.run(probe())
    except BaseException:
        _close_models(cast)
        raise
    if note:
        log(f"note: {note}")


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
        if sk.get("task") not in (None, "-") and not sk.get("protocol"):  # a protocol left out is no task's rows
            out[sk["task"]][sk["reason"]] = sk["count"]
    return out


# -- the steps ---------------------------------------------------------------------------------------


def task_versions(tasks: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """Each YAML task's version and resolved-YAML hash (tasks of other kinds have none)."""
    return {t.name: t.fingerprint for t in tasks if isinstance(getattr(t, "fingerprint", None), dict)}


def shared_model(judge: Model, judge_spec: Spec, spec: Spec) -> Model:
    """The judge itself when `spec` names the same model (backend, model, options), else a new one."""
    return judge if spec == judge_spec else build_model(spec)


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
    models = {id(m): m for m in (*runner.models.values(), *(d[0] for d in runner.debaters.values())) if m}.values()
    try:
        return await runner.run(work, total=total, workers=workers, on_progress=on_progress)
    finally:
        for m in models:
            traffic = m.traffic()
            if traffic:
                runner.stats.traffic[m.name] = traffic
            await m.aclose()
