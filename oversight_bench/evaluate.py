"""The run pipeline behind `oversight-bench run` and `oversight-bench judge --from`.

It resolves names through the registry, loads questions, checks model capabilities before any
call, plans jobs, and hands them to the Runner. Everything it writes goes to the run directory.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator

from oversight_bench.config import RunConfig
from oversight_bench.errors import BenchError
from oversight_bench.models import Model, build_model, parse_spec, redact_spec
from oversight_bench.protocol import Job, Protocol, Turn
from oversight_bench.provenance import provenance
from oversight_bench.questions import Question
from oversight_bench.registry import get_registry
from oversight_bench.runner import Runner, Stats, derive_seed
from oversight_bench.store import Store

ORDERS = ("correct_first", "correct_second")


@dataclass
class Outcome:
    stats: Stats
    summary: list[dict[str, Any]]
    skipped: list[dict[str, Any]]
    output: str


def answer_orders(mode: str, seed: int, question: Question) -> tuple[str, ...]:
    """`both` orders, or one order drawn with the seed (stable per question)."""
    if mode == "both":
        return ORDERS
    return (ORDERS[derive_seed(seed, "order", question.task, question.id) % 2],)


def plan_jobs(protocols: list[Protocol], questions: list[Question], answer_order: str, seed: int) -> list[tuple[Protocol, Job, None]]:
    jobs = []
    for q in questions:
        for p in protocols:
            if p.needs_article and not q.article:
                continue  # QA with article only applies to extractive tasks
            for order in answer_orders(answer_order, seed, q):
                for assignment in p.assignments():
                    jobs.append((p, Job(p.name, q, order, assignment), None))
    return jobs


class LazyPlan:
    """`plan_jobs`, made while the run goes: each question is let go once its jobs are handed out,
    and no list of every job is built, so memory does not grow with the run's length.

    A streamed task's questions (an iterator, see `LoadResult`) are pulled as jobs are needed and
    stored in chunks through the store's writer, ahead of their jobs' records; their total is
    estimated from `count` (None when unknown)."""

    CHUNK = 256

    def __init__(self, protocols: list[Protocol], questions: list[Question] | Iterator[Question], answer_order: str,
                 seed: int, *, store: Store | None = None, count: int | None = None,
                 on_gpqa: Callable[[], None] = lambda: None):
        self.protocols, self.answer_order, self.seed = protocols, answer_order, seed
        self.store, self.on_gpqa = store, on_gpqa
        if isinstance(questions, list):
            self._questions, self._stream = questions[::-1], None  # popped from the end, in order
            self.total: int | None = sum(len(answer_orders(answer_order, seed, q)) * len(p.assignments())
                                         for q in questions for p in protocols if not (p.needs_article and not q.article))
        else:
            self._questions, self._stream = [], questions
            per_question = (2 if answer_order == "both" else 1) * sum(len(p.assignments()) for p in protocols)
            exact = not any(p.needs_article for p in protocols)
            self.total = count * per_question if count is not None and exact else None

    def __iter__(self):
        while True:
            if not self._questions and self._stream is not None:
                chunk = list(itertools.islice(self._stream, self.CHUNK))
                if any(q.meta.get("contains_gpqa") for q in chunk):
                    self.on_gpqa()
                if chunk and self.store is not None:
                    self.store.put_questions(chunk)
                self._questions = chunk[::-1]
            if not self._questions:
                return
            yield from plan_jobs(self.protocols, [self._questions.pop()], self.answer_order, self.seed)


def _split_debias(spec_text: str) -> tuple[str, bool]:
    """`debias=true` on a judge spec asks for the position-debiased judge (both orders, averaged
    probabilities); it is a judging strategy, not a backend option, so it is taken off here."""
    spec = parse_spec(spec_text)
    debias = bool(spec.options.pop("debias", False))
    return str(spec), debias


def build_models(judge_spec: str, agent_spec: str | None) -> tuple[Model, Model | None, bool]:
    judge_text, debias = _split_debias(judge_spec)
    judge = build_model(judge_text)
    agent = None
    if agent_spec is not None:
        agent = judge if parse_spec(agent_spec) == parse_spec(judge_text) else build_model(agent_spec)
    return judge, agent, debias


def check_capabilities(judge: Model, agent: Model | None, debias: bool, protocols: list[Protocol],
                       questions: list[Question], judge_name: str, agent_name: str, options=None,
                       image_tasks: set[str] = frozenset()) -> None:
    """Fail before any call when a protocol or task needs what a model lacks. `image_tasks`
    names tasks whose questions are not at hand (streamed) but show images."""
    if debias and not judge.capabilities.logprobs:
        raise BenchError(f"judge {judge_name} cannot give answer probabilities, which debias=true needs; drop debias or use a backend with logprobs")
    image_tasks = sorted({q.task for q in questions if q.images} | set(image_tasks))
    if image_tasks:
        if not judge.capabilities.images:
            raise BenchError(f"task {image_tasks[0]} shows images but judge {judge_name} is text-only; use an image-capable judge or drop the task")
        if agent is not None and any(p.uses_agent for p in protocols) and not agent.capabilities.images:
            raise BenchError(f"task {image_tasks[0]} shows images but agent {agent_name} is text-only; use an image-capable agent or drop the task")
    for p in protocols:
        if agent is not None and p.uses_agent and p.agent_needs.multi_sample and not agent.capabilities.multi_sample:
            raise BenchError(f"protocol {p.name} needs n>1 samples but agent {agent_name} cannot sample several")
    if options is not None:
        if debias and options.judge_mode == "cot":
            raise BenchError("debias=true reads answer probabilities, which chain-of-thought judging does not give; use judge_mode predict or drop debias")
        if options.best_of_n > 1 and agent is not None and not agent.capabilities.multi_sample:
            raise BenchError(f"best_of_n={options.best_of_n} needs several samples per call but agent {agent_name} gives one; use best_of_n 1")


def _workers(models: list[Model | None], concurrency: int | None, n_jobs: int) -> int:
    """Jobs to interleave: enough to keep every model's in-flight bound busy, unless all the
    models prefer fewer (in-process backends that serialise their calls)."""
    distinct = list({id(m): m for m in models if m}.values())
    inflight = sum((concurrency or m.max_concurrency) for m in distinct)
    workers = min(n_jobs, 4 * inflight, 512)
    if distinct and all(m.max_jobs for m in distinct):
        workers = min(workers, max(m.max_jobs for m in distinct))
    return max(1, workers)


def _check_identity(store: Store, config: dict[str, Any]) -> dict[str, Any]:
    """The stored config of a run being resumed ({} for a new one), refused if its settings differ."""
    old = store.read_config()
    if old is None:
        return {}
    for key in ("kind", "judge", "agent", "seed", "tasks", "protocols", "options", "source"):
        if old.get(key) != config.get(key):
            raise BenchError(
                f"{store.dir} already holds a run with a different {key} ({old.get(key)!r}, now {config.get(key)!r}); "
                f"use the same settings to resume, or another --output"
            )
    return old


def summarize(store: Store, judge: str | None = None) -> list[dict[str, Any]]:
    """Accuracy per protocol x task over valid answers (the short end-of-run table)."""
    acc: dict[tuple, list] = defaultdict(lambda: [0, 0, 0])
    for r in store.iter_records("decision"):
        if judge and r["judge"] != judge:
            continue
        cell = acc[(r["judge"], r["protocol"], r["task"])]
        cell[0] += 1
        if r.get("answer") is None:
            cell[2] += 1
        elif r.get("correct"):
            cell[1] += 1
    rows = []
    for (j, p, t), (n, ok, inv) in sorted(acc.items()):
        valid = n - inv
        rows.append({"judge": j, "protocol": p, "task": t, "n": n, "valid": valid, "invalid": inv,
                     "accuracy": ok / valid if valid else None})
    return rows


def _run_with_progress(runner: Runner, jobs, protocols, total: int, workers: int, desc: str) -> Stats:
    from tqdm import tqdm

    bar = tqdm(total=total, desc=desc, unit="job", dynamic_ncols=True)
    last = [0.0]

    def draw(s: Stats) -> None:
        bar.n = s.jobs_done + s.jobs_skipped + s.jobs_failed
        counts = dict(calls=s.calls, cached=s.cache_hits, invalid=s.invalid, failed=s.jobs_failed,
                      retries=s.retries)
        bar.set_postfix({k: str(v) for k, v in counts.items()}, refresh=False)  # str: no "1e+4"
        bar.refresh()

    def progress(s: Stats) -> None:
        # a redraw costs about as much CPU as a whole job: ten a second is plenty
        now = time.monotonic()
        if now - last[0] >= 0.1:
            last[0] = now
            draw(s)

    try:
        stats = asyncio.run(_drive(runner, jobs, protocols, total, workers, progress))
        draw(stats)
        return stats
    finally:
        bar.close()


async def _drive(runner: Runner, jobs, protocols, total, workers, progress) -> Stats:
    try:
        return await runner.run(jobs, protocols, total=total, workers=workers, on_progress=progress)
    finally:
        for m in {id(m): m for m in runner.models.values() if m}.values():
            await m.aclose()


def _execute(store: Store, runner: Runner, jobs: list | LazyPlan, protocols: dict[str, Protocol], progress: bool, desc: str,
             concurrency: int | None) -> Outcome:
    """Run planned jobs and summarise: shared by run, judge and cross-play."""
    total = jobs.total if isinstance(jobs, LazyPlan) else len(jobs)  # None: a stream of unknown length
    workers = _workers([*runner.models.values(), *(d[0] for d in runner.debaters.values())], concurrency,
                       total if total is not None else 1 << 30)
    if progress:
        stats = _run_with_progress(runner, jobs, protocols, total, workers, desc)
    else:
        stats = asyncio.run(_drive(runner, jobs, protocols, total, workers, lambda s: None))
    return Outcome(stats, summarize(store, runner.names["judge"]), [], str(store.dir))


def _all_protocols() -> dict[str, Protocol]:
    reg = get_registry()
    return {n: reg.get("protocols", n) for n in reg.names("protocols")}


@dataclass
class _Loaded:
    """What the tasks gave: `questions` to plan (a list, or an iterator when a task streams),
    `held` (those in memory anyway, for checks before any call) and the tasks that stream."""

    questions: list[Question] | Iterator[Question]
    count: int | None
    pool: dict[str, list[Question]]
    skipped: list[dict[str, Any]]
    held: list[Question]
    streamed: list[Any]


def _load_questions(store: Store, tasks, ddir, limit: int | None, seed: int, extra: int, log) -> _Loaded:
    """Each task's sample (+ `extra` questions for the few-shot pool) and how many there are;
    record skipped rows. A task that returns an iterator is streamed, not held, unless a
    few-shot pool needs the questions after its sample."""
    parts: list = []
    count: int | None = 0
    pool: dict[str, list[Question]] = {}
    skipped, held, streamed = [], [], []
    for task in tasks:
        n = limit or task.sample_size
        res = task.load(ddir, n + extra, seed)
        qs = res.questions if isinstance(res.questions, list) or not extra else list(res.questions)
        if isinstance(qs, list):
            parts.append(qs[:n])
            held.extend(parts[-1])
            pool[task.name] = qs[n:]
            count = None if count is None else count + len(parts[-1])
        else:
            parts.append(itertools.islice(qs, n))
            streamed.append(task)
            count = None if count is None or res.count is None else count + min(n, res.count)
        if res.skipped:
            store.record_skipped(task.name, dict(res.skipped))
            skipped.extend({"task": task.name, "reason": r, "count": c} for r, c in res.skipped.items())
        for note in res.notes:
            log(f"{task.name}: {note}")
    empty = f"tasks {', '.join(t.name for t in tasks)} produced no questions (data dir: {ddir}); check --data-dir"
    if not streamed:
        if not held:
            raise BenchError(empty)
        return _Loaded(held, count, pool, skipped, held, [])
    stream = itertools.chain.from_iterable(parts)
    first = next(stream, None)  # a stream's emptiness shows only when it is read
    if first is None:
        raise BenchError(empty)
    return _Loaded(itertools.chain([first], stream), count, pool, skipped, held, streamed)


def run_eval(config: RunConfig, *, progress: bool = True, log: Callable[[str], None] = print) -> Outcome:
    """Run (or resume) the evaluation `config` describes."""
    from oversight_bench.tasks import data_dir as resolve_data_dir, resolve_tasks

    reg = get_registry()
    protocols = [reg.get("protocols", name) for name in config.protocols]
    tasks = resolve_tasks(config.tasks, config.include_path)
    ddir = resolve_data_dir(config.data_dir)
    _, debias = _split_debias(config.judge)
    judge_name, agent_name = redact_spec(config.judge), redact_spec(config.agent)

    stored = {"kind": "run", **config.model_dump(mode="json"), "judge": judge_name, "agent": agent_name}
    store = Store.open(config.output, write=True)
    try:
        prior = _check_identity(store, stored)
        loaded = _load_questions(store, tasks, ddir, config.limit, config.seed, config.options.few_shot, log)
        stored.update(provenance(), data_dir=str(ddir) if ddir else None,
                      contains_gpqa=bool(prior.get("contains_gpqa")) or any(q.meta.get("contains_gpqa") for q in loaded.held),
                      task_types={t.name: t.task_type for t in tasks})
        store.write_config(stored)
        store.put_questions(loaded.held)

        judge, agent, _ = build_models(config.judge, config.agent)
        uses_agent = any(p.uses_agent for p in protocols)
        check_capabilities(judge, agent if uses_agent else None, debias, protocols, loaded.held, judge_name, agent_name,
                           config.options, image_tasks={t.name for t in loaded.streamed if getattr(
                               t, "needs_images", t.task_type == "multimodal")})
        runner = Runner(store, judge=judge, agent=agent, judge_name=judge_name, agent_name=agent_name,
                        options=config.options, seed=config.seed, judge_debias=debias,
                        concurrency=config.concurrency, few_shot_pool=loaded.pool, protocols=_all_protocols())
        def flag_gpqa() -> None:  # a streamed question is GPQA-derived: say so before its jobs run
            if not stored["contains_gpqa"]:
                stored["contains_gpqa"] = True
                store.write_config(stored)

        jobs = LazyPlan(protocols, loaded.questions, config.options.answer_order, config.seed, store=store,
                        count=loaded.count, on_gpqa=flag_gpqa)
        skipped = loaded.skipped
        del loaded  # the plan holds the only reference and lets each question go once planned
        outcome = _execute(store, runner, jobs, runner._protocols, progress, "run", config.concurrency)
        outcome.skipped = skipped
        return outcome
    finally:
        store.close()


def _source_job(d: dict[str, Any], q: Question) -> Job:
    """Rebuild the Job of a stored decision, keeping its key (imported rooms add a variant) and agent."""
    deb = (d.get("extra") or {}).get("debaters")
    debaters = tuple(deb) if isinstance(deb, list) and len(deb) == 2 and all(isinstance(x, str) for x in deb) else None
    job = Job(d["protocol"], q, d["answer_order"], d["assignment"], agent=d.get("agent"), debaters=debaters)
    if d["job_key"] != job.key:
        rest = d["job_key"][len(job.key) + 1:] if d["job_key"].startswith(job.key + "|") else d["job_key"]
        job = replace(job, variant=rest)
    return job


def rejudge(source: str, judge_spec: str, output: str, *, progress: bool = True, concurrency: int | None = None,
            option_overrides: dict[str, Any] | None = None, only: set[str] | None = None) -> Outcome:
    """Judge the stored transcripts of `source` with a new judge: judge calls only (`only`: these job keys)."""
    from oversight_bench.protocol import ProtocolOptions

    reg = get_registry()
    src = Store.open(source)
    try:
        src_cfg = src.read_config() or {}
        questions = src.questions()
        turns_by_job: dict[str, list[dict]] = defaultdict(list)
        first_judge: dict[str, str] = {}
        decisions = []
        for r in src.iter_records():
            key = r["job_key"]
            first_judge.setdefault(key, r["judge"])
            if r["judge"] != first_judge[key]:
                continue  # the same transcript judged by several judges: take it once
            if r["kind"] == "turn":
                turns_by_job[key].append(r)
            else:
                decisions.append(r)
    finally:
        src.close()

    try:
        options = ProtocolOptions.model_validate({**(src_cfg.get("options") or {}), **(option_overrides or {})})
    except Exception as exc:
        raise BenchError(f"judge options: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}" if hasattr(exc, "errors") else str(exc)) from None
    jobs, not_rejudgeable = [], defaultdict(int)
    for d in decisions:
        if only is not None and d["job_key"] not in only:
            continue
        protocol = reg.get("protocols", d["protocol"])
        if not protocol.rejudgeable:
            not_rejudgeable[d["protocol"]] += 1
            continue
        q = questions.get((d["task"], d["question_id"]))
        if q is None:
            raise BenchError(f"{source}: decision {d['job_key']} refers to a question missing from the store")
        turns = [Turn.from_dict(t) for t in sorted(turns_by_job[d["job_key"]], key=lambda t: t["seq"])]
        jobs.append((protocol, _source_job(d, q), turns))
    if not jobs:
        raise BenchError(f"{source} holds no re-judgeable transcripts (protocols there: {', '.join(sorted(not_rejudgeable)) or 'none'}); "
                         f"only QA and debate transcripts can be re-judged")

    judge_text, debias = _split_debias(judge_spec)
    judge_name = redact_spec(judge_spec)
    agent_name = src_cfg.get("agent", "unknown")
    stored = {"kind": "judge", "source": str(source), "judge": judge_name, "agent": agent_name,
              "seed": src_cfg.get("seed", 0), "options": options.model_dump(mode="json"),
              "tasks": src_cfg.get("tasks"), "protocols": sorted({j[1].protocol for j in jobs}),
              "task_types": src_cfg.get("task_types"), "contains_gpqa": src_cfg.get("contains_gpqa", False),
              "source_config": src_cfg, **provenance()}
    store = Store.open(output, write=True)
    try:
        _check_identity(store, stored)
        store.write_config(stored)
        store.put_questions(list(questions.values()))
        judge = build_model(judge_text)
        check_capabilities(judge, None, debias, [], [j[1].question for j in jobs], judge_name, agent_name, options)
        runner = Runner(store, judge=judge, agent=None, judge_name=judge_name, agent_name=agent_name,
                        options=options, seed=stored["seed"], judge_debias=debias, concurrency=concurrency,
                        protocols=_all_protocols())
        outcome = _execute(store, runner, jobs, runner._protocols, progress, "judge", concurrency)
        outcome.skipped = [{"task": "-", "reason": f"{p} is not re-judgeable", "count": c} for p, c in not_rejudgeable.items()]
        return outcome
    finally:
        store.close()


def _split_best_of_n(spec_text: str) -> tuple[str, int]:
    """A cross-play debater `spec,best_of_n=4` is its own player sharing the base model."""
    spec = parse_spec(spec_text)
    n = int(spec.options.pop("best_of_n", 1))
    return str(spec), n


def run_crossplay(debaters: list[str], judge_spec: str, task_names: list[str], pairings: int, output: str, *,
                  seed: int = 0, data_dir: str | None = None, progress: bool = True, concurrency: int | None = None,
                  log: Callable[[str], None] = print) -> Outcome:
    """One-round simultaneous debates (§4.3, Appendix E): the cross-play and self-play games
    `crossplay.plan_games` draws, each task contributing equally, about `pairings` cross-play games."""
    from oversight_bench import crossplay
    from oversight_bench.protocol import ProtocolOptions
    from oversight_bench.tasks import data_dir as resolve_data_dir, resolve_tasks

    names = [redact_spec(d) for d in debaters]
    if len(set(names)) < 2:
        raise BenchError(f"elo needs at least two different debaters, got {', '.join(names) or 'none'}")
    tasks = resolve_tasks(task_names, [])
    per_task = crossplay.games_per_task(pairings, len(tasks))
    options = ProtocolOptions(rounds=1, turn_style="simultaneous")
    judge_text, debias = _split_debias(judge_spec)
    judge_name = redact_spec(judge_spec)
    stored = {"kind": "crossplay", "judge": judge_name, "agent": "crossplay", "debaters": names, "seed": seed,
              "tasks": task_names, "protocols": ["debate"], "options": options.model_dump(mode="json"),
              "pairings": pairings, **provenance()}
    store = Store.open(output, write=True)
    try:
        _check_identity(store, stored)
        ddir = resolve_data_dir(data_dir)
        loaded = _load_questions(store, tasks, ddir, per_task, seed, 0, log)
        questions, skipped = list(loaded.questions), loaded.skipped
        plan = crossplay.plan_games({t.name: [q for q in questions if q.task == t.name] for t in tasks}, names, pairings, seed)
        stored["task_types"] = {t.name: t.task_type for t in tasks}
        store.write_config(stored)
        store.put_questions(questions)
        judge = build_model(judge_text)
        models: dict[str, Model] = {}
        players: dict[str, tuple[Model, int]] = {}
        for spec_text, name in zip(debaters, names):
            base, bon = _split_best_of_n(spec_text)
            models.setdefault(base, judge if parse_spec(base) == parse_spec(judge_text) else build_model(base))
            players[name] = (models[base], bon)
        check_capabilities(judge, None, debias, [], questions, judge_name, "crossplay", options)
        debate = get_registry().get("protocols", "debate")
        jobs = [(debate, Job("debate", g.question, g.answer_order, agent=" vs ".join(g.debaters), debaters=g.debaters), None)
                for g in plan]
        runner = Runner(store, judge=judge, agent=None, judge_name=judge_name, agent_name="crossplay",
                        options=options, seed=seed, judge_debias=debias, concurrency=concurrency,
                        protocols=_all_protocols(), debaters=players)
        outcome = _execute(store, runner, jobs, runner._protocols, progress, "cross-play", concurrency)
        outcome.skipped = skipped
        return outcome
    finally:
        store.close()


def export_jsonl(directory: str, write: Callable[[str], None]) -> int:
    """Every record of a run as JSONL (kind = call | turn | decision); returns the count."""
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
