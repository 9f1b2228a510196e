"""The plans the pipeline runs: `RunPlan` (`run`), `JudgePlan` (`judge --from`, `judge --suite`;
the human study's plan builds on it), `CrossplayPlan` (`elo`) and `ImportPlan` (an importer's
already-complete records). A plan says what its command stores, loads, builds and which jobs it
makes; the steps themselves are the pipeline's (pipeline.py)."""

from __future__ import annotations

import dataclasses
import itertools
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from oversight_bench import crossplay
from oversight_bench.config import RunConfig
from oversight_bench.errors import BenchError
from oversight_bench.models import Model, Spec, judge_spec, parse_spec, redact_spec
from oversight_bench.pipeline import Cast, Plan, Prepared, Started, shared_model, task_versions
from oversight_bench.protocol import Job, Protocol, Turn, display_key, protocols_where
from oversight_bench.protocol_options import CommonOptions, options_model, stored_options
from oversight_bench.questions import ORDERS, Question
from oversight_bench.registry import get_registry
from oversight_bench.rundir import Store, StoredRun, check_writable, legacy, write_job
from oversight_bench.scheduler import Stats, derive_seed
from oversight_bench.sources import file_fingerprints, track_reads


# -- run ---------------------------------------------------------------------------------------------


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
                 on_restricted: Callable[[], None] = lambda: None):
        self.protocols, self.answer_order, self.seed = protocols, answer_order, seed
        self.store, self.on_restricted = store, on_restricted
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
                if any(q.meta.get("do_not_publish") for q in chunk):
                    self.on_restricted()
                if chunk and self.store is not None:
                    self.store.put_questions(chunk)
                self._questions = chunk[::-1]
            if not self._questions:
                return
            yield from plan_jobs(self.protocols, [self._questions.pop()], self.answer_order, self.seed)


def load_questions(tasks, ddir, limit: int | None, seed: int, extra: int, log) -> Prepared:
    """Each task's sample (+ `extra` questions for the few-shot pool) and how many there are,
    with the skipped rows and a fingerprint of the data files each task read (nothing is
    written: the pipeline stores them once the run's identity is checked). A task that returns
    an iterator is streamed, not held, unless a few-shot pool needs the questions after its sample."""
    parts: list = []
    count: int | None = 0
    pool: dict[str, list[Question]] = {}
    skipped, held, streamed = [], [], []
    data: dict[str, dict[str, str]] = {}
    substitutions: dict[str, list[str]] = {}
    for task in tasks:
        n = limit or task.sample_size
        with track_reads() as read:  # a plugin task reading through sources.read_rows
            res = task.load(ddir, n + extra, seed)
        data[task.name] = {**file_fingerprints(read, ddir), **(getattr(res, "files", None) or {})}
        if getattr(res, "deviations", None):  # a plugin's LoadResult may predate the field
            substitutions[task.name] = list(res.deviations)
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
            skipped.extend({"task": task.name, "reason": r, "count": c} for r, c in res.skipped.items())
        for note in res.notes:
            log(f"{task.name}: {note}")
    empty = f"tasks {', '.join(t.name for t in tasks)} produced no questions (data dir: {ddir}); check --data-dir"
    image_tasks = {t.name for t in streamed if getattr(t, "needs_images", t.task_type == "multimodal")}
    if not streamed:
        if not held:
            raise BenchError(empty)
        return Prepared(held, held, skipped=skipped, count=count, few_shot_pool=pool, data=data, substitutions=substitutions)
    stream = itertools.chain.from_iterable(parts)
    first = next(stream, None)  # a stream's emptiness shows only when it is read
    if first is None:
        raise BenchError(empty)
    return Prepared(itertools.chain([first], stream), held, skipped=skipped, count=count, image_tasks=image_tasks,
                    few_shot_pool=pool, data=data, substitutions=substitutions)


def left_out(protocols: list[Protocol], held: list[Question]) -> list[dict[str, Any]]:
    """The protocol · task pairs (or their questions) a protocol cannot apply to, with the reason:
    one that needs an article (`Protocol.needs_article`) on questions without one. `plan_jobs`
    makes no job for them; these rows say so (end-of-run summary, results.json)."""
    by_task: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # task -> [questions, without an article]
    for q in held:
        by_task[q.task][0] += 1
        by_task[q.task][1] += not q.article
    rows = []
    for p in protocols:
        if not p.needs_article:
            continue
        for task, (n, bare) in by_task.items():
            if bare:
                which = f"{task}'s questions have no article" if bare == n else f"{bare} of {n} questions of {task} have no article"
                rows.append({"task": task, "protocol": p.name, "count": bare,
                             "reason": f"{which}, which {p.name} needs"})
    return rows


class RunPlan(Plan):
    """`run`: the configured protocols on the configured tasks."""

    kind = desc = "run"

    def __init__(self, config: RunConfig):
        from oversight_bench.tasks import data_dir, resolve_tasks

        reg = get_registry()
        self.config = config
        if not config.protocols:
            raise BenchError("no protocols selected; expected a comma-separated list such as --protocols debate,consultancy "
                             "(see 'oversight-bench list protocols')")
        self.protocols = [reg.get("protocols", name) for name in config.protocols]
        self.tasks = resolve_tasks(config.tasks, config.include_path)
        self.ddir = data_dir(config.data_dir)
        # each spec parsed once, here: the pipeline checks and builds these objects (a bad spec fails before anything is written)
        self.judge, self.agent = judge_spec(config.judge), parse_spec(config.agent)
        self.output, self.options = config.output, config.options
        self.seed, self.concurrency = config.seed, config.concurrency
        self.max_total_tokens, self.max_cost = config.max_total_tokens, config.max_cost
        self.cache_from = tuple(config.cache_from)
        self.agent_name = redact_spec(self.agent)

    def judged_tasks(self) -> list[str]:
        return [t.name for t in self.tasks]  # the judge tool is checked before any task loads

    def identity(self) -> dict[str, Any]:
        return {"kind": "run", **self.config.model_dump(mode="json", exclude={"cache_from", "max_total_tokens", "max_cost"}),
                "agent": self.agent_name, "task_versions": task_versions(self.tasks)}

    def questions(self, store, prior, log) -> Prepared:
        prepared = load_questions(self.tasks, self.ddir, self.config.limit, self.seed, self.options.few_shot, log)
        dropped = left_out(self.protocols, prepared.held)
        streamed = not isinstance(prepared.questions, list)
        if not streamed and not any(not p.needs_article or any(q.article for q in prepared.held) for p in self.protocols):
            why = "; ".join(f"{d['protocol']} on {d['task']}: {d['reason']}" for d in dropped)
            raise BenchError(f"nothing to run: {why}; "
                             f"add a task with articles (the extractive group, e.g. --tasks quality) or another protocol")
        prepared.skipped.extend(dropped)
        prepared.config = {"data_dir": str(self.ddir) if self.ddir else None,
                           "do_not_publish": legacy.do_not_publish(prior) or any(q.meta.get("do_not_publish") for q in prepared.held),
                           "task_types": {t.name: t.task_type for t in self.tasks}}
        return prepared

    def model_specs(self) -> list[Spec]:
        return [self.agent]  # checked even when unused: it is part of the run's identity

    def models(self, judge: Model, judge_spec: Spec) -> Cast:
        """The agent is built only when a protocol of the run speaks through it: a QA-only run never
        needs the agent's backend (or its weights) installed."""
        uses_agent = any(p.uses_agent for p in self.protocols)
        return Cast(judge, shared_model(judge, judge_spec, self.agent) if uses_agent else None)

    def jobs(self, prepared, store, config):
        def flag_restricted() -> None:  # a streamed question must not be published: say so before its jobs run
            if not config["do_not_publish"]:
                config["do_not_publish"] = True
                store.write_config(config)

        plan = LazyPlan(self.protocols, prepared.questions, self.options.answer_order, self.seed, store=store,
                        count=prepared.count, on_restricted=flag_restricted)
        return plan, plan.total


# -- judge --from ------------------------------------------------------------------------------------


def rejudge_jobs(source: StoredRun, only: set[str] | None = None) -> tuple[list[tuple[Protocol, Job, list[Turn]]], dict[str, int]]:
    """The (protocol, job, turns) items of the source's re-judgeable transcripts (`only`: these job
    keys), and how many transcripts of each other protocol were left out."""
    reg = get_registry()
    jobs, not_rejudgeable = [], defaultdict(int)
    for d, turns in source.transcripts():
        if only is not None and d.job_key not in only:
            continue  # a suite's sample: these job keys only
        if not source.rejudgeable(d.protocol):
            not_rejudgeable[d.protocol] += 1
            continue
        jobs.append((reg.get("protocols", d.protocol), source.job(d), turns))
    return jobs, dict(not_rejudgeable)


def derived_jobs(items: list[tuple[Protocol, Job, list[Turn]]], target: Protocol
                 ) -> tuple[list[tuple[Protocol, Job, list[Turn]]], dict[str, int]]:
    """Re-judgeable transcripts (`rejudge_jobs`) judged as `target`, a protocol derived from theirs
    (`Protocol.derived_from`): each keeps its question, answer order, assignment, variant and
    debaters under the target's name; the others are left out, counted by reason (a target that
    needs an article takes only questions that have one).
    A target that plays no turns (`uses_agent` false: QA) judges the question and answers of any
    argued transcript (`has_debaters` or a consultancy: whatever `judge --from` re-judges beyond
    QA) without its turns, so its rooms hold nothing the judge did not read."""
    jobs, left_out = [], defaultdict(int)
    for protocol, job, turns in items:
        # a target that plays no turns (QA) takes the question of any argued transcript, without its turns
        question_only = not target.uses_agent and target.name != protocol.name and protocol.uses_agent
        if not question_only and protocol.name not in target.derived_from:
            sources = ", ".join(target.derived_from) or "the questions of argued transcripts"
            left_out[f"{protocol.name} is not judged as {target.name} (it judges {sources})"] += 1
        elif target.needs_article and not job.question.article:
            left_out[f"{protocol.name} on {job.question.task}: {target.name} needs an article"] += 1
        else:
            jobs.append((target, dataclasses.replace(job, protocol=target.name), [] if question_only else turns))
    return jobs, dict(left_out)


def derived_protocol(name: str) -> Protocol:
    """The protocol `judge --as NAME` names: one that judges other protocols' stored transcripts."""
    reg = get_registry()
    target = reg.get("protocols", name)  # an unknown name: the registry's error lists the protocols
    if not target.derived_from and target.uses_agent:
        can = sorted((n for n in reg.names("protocols") if reg.get("protocols", n).derived_from
                      or not reg.get("protocols", n).uses_agent), key=display_key)
        raise BenchError(f"--as {name}: {name} judges only its own transcripts (re-judge them without --as); "
                         f"--as takes a protocol derived from another's transcripts: {', '.join(can) or 'none is installed'}")
    return target


def judge_identity(source: StoredRun, agent_name: str, options: CommonOptions, protocols: set[str]) -> dict[str, Any]:
    """The stored config of a run judging `source`'s transcripts (its judge added by the pipeline)."""
    from oversight_bench.deviations import imported_source

    c = source.config
    opts = options.model_dump(mode="json")
    if "import" in c or imported_source(c):  # others made the transcripts (however many re-judgings back):
        from oversight_bench.protocol_options import judge_option_names  # only the options shaping this judge's requests

        opts = {k: v for k, v in opts.items() if k in judge_option_names()}
    return {"kind": "judge", "source": source.given, "agent": agent_name, "seed": c.get("seed", 0),
            "options": opts, "tasks": c.get("tasks"), "protocols": sorted(protocols),
            "task_types": c.get("task_types"), "do_not_publish": legacy.do_not_publish(c), "source_config": c}


class JudgePlan(Plan):
    """`judge --from` and `judge --suite`: the re-judgeable transcripts of an already-read stored run
    (`StoredRun.rejudgeable`; `only`: these job keys) judged again (judge calls only); with
    `as_protocol`, judged as that derived protocol (`derived_jobs`). A source with nothing to judge is
    refused when the plan is made, before anything is written."""

    kind, desc = "judge", "judge"

    def __init__(self, source: StoredRun, judge: Spec | str, output: str, *, concurrency: int | None = None,
                 option_overrides: dict[str, Any] | None = None, only: set[str] | None = None,
                 cache_from: tuple[str, ...] = (), as_protocol: str | None = None, options: CommonOptions | None = None):
        if options is None:  # else made by the caller from these same overrides (a suite's checks use them first)
            options = source.options(option_overrides, [as_protocol] if as_protocol else None)
        jobs, not_rejudgeable = rejudge_jobs(source, only)
        left_out = {f"{p} is not re-judgeable": c for p, c in not_rejudgeable.items()}
        if as_protocol:
            jobs, other = derived_jobs(jobs, derived_protocol(as_protocol))
            left_out.update(other)
        if not jobs:
            if as_protocol:
                held = sorted({d.protocol for d in source.decisions})
                raise BenchError(f"{source.dir} holds no transcripts {as_protocol} can judge ({'; '.join(sorted(left_out)) or 'none stored'}); "
                                 f"protocols there: {', '.join(held) or 'none'}")
            raise BenchError(f"{source.dir} holds no re-judgeable transcripts (protocols there: {', '.join(sorted(not_rejudgeable)) or 'none'}); "
                             f"only QA, debate and one-round consultancy transcripts can be re-judged")
        self.judge = judge_spec(judge)  # parsed once (a Spec given is taken as it is)
        self.source, self.src_cfg = source, source.config
        self._jobs, self.left_out = jobs, left_out
        self.output, self.options, self.concurrency = output, options, concurrency
        self.cache_from = tuple(cache_from)
        self.seed = self.src_cfg.get("seed", 0)
        self.agent_name = self.src_cfg.get("agent", "unknown")

    def read_dirs(self) -> list[str]:
        return [*self.cache_from, str(self.source.dir)]

    def judged_tasks(self) -> set[str]:
        return {j[1].question.task for j in self._jobs}

    def keep(self, keys: set[str]) -> None:
        """Judge only these job keys of the plan's (a suite's rooms that fit the judge's context)."""
        self._jobs = [j for j in self._jobs if j[1].key in keys]

    def identity(self) -> dict[str, Any]:
        return judge_identity(self.source, self.agent_name, self.options, {j[1].protocol for j in self._jobs})

    def questions(self, store, prior, log) -> Prepared:
        skipped = [{"task": "-", "reason": reason, "count": c} for reason, c in self.left_out.items()]
        store.put_questions(list(self.source.questions.values()))  # every source question; the jobs' are checked
        held = [j[1].question for j in self._jobs]
        return Prepared(held, held, skipped=skipped)

    def jobs(self, prepared, store, config):
        return self._jobs, len(self._jobs)


# -- elo (cross-play) --------------------------------------------------------------------------------


def crossplay_protocol() -> Protocol:
    """The protocol cross-play games are debates of: the first assigned-role protocol with two
    debaters, by display order (the built-in `debate`)."""
    names = sorted(protocols_where("has_debaters") - protocols_where("open_role"), key=display_key)
    if not names:
        raise BenchError("elo needs an installed debate protocol (one with two debaters and assigned roles); none is")
    return get_registry().get("protocols", names[0])


def crossplay_jobs(debate: Protocol, games: list) -> list[tuple[Protocol, Job, None]]:
    """The debate jobs of the games `crossplay.plan_games` drew (cross-play and self-play)."""
    return [(debate, Job(debate.name, g.question, g.answer_order, agent=" vs ".join(g.debaters), debaters=g.debaters), None)
            for g in games]


def _player(spec_text: str) -> tuple[str, Spec, int]:
    """A cross-play debater `spec,best_of_n=4`, parsed once: its name (the whole spec, redacted), its
    base model's spec and its best-of-N. Each is its own player; players of one base share its model."""
    spec = parse_spec(spec_text)
    name = redact_spec(spec)
    return name, spec, int(spec.options.pop("best_of_n", 1))


class CrossplayPlan(Plan):
    """`elo`: one-round simultaneous debates (§4.3, Appendix E): the cross-play and self-play games
    `crossplay.plan_games` draws, each task contributing equally, about `pairings` cross-play games."""

    kind, desc = "crossplay", "cross-play"
    agent_name = "crossplay"

    def __init__(self, debaters: list[str], judge: Spec | str, task_names: list[str], pairings: int, output: str, *,
                 seed: int = 0, data_dir: str | None = None, concurrency: int | None = None, selfplay: int | None = None):
        from oversight_bench.tasks import resolve_tasks

        if selfplay is not None and selfplay < 0:
            raise BenchError(f"elo: --selfplay must be 0 or more questions per task, got {selfplay}")
        self.selfplay = selfplay  # self-play questions per task; None: crossplay.selfplay_per_task
        players = [_player(d) for d in debaters]
        self.names = [name for name, _, _ in players]
        if len(set(self.names)) < 2:
            raise BenchError(f"elo needs at least two different debaters, got {', '.join(self.names) or 'none'}")
        #: each player's (base spec, best_of_n); players of one base model (its spec but best_of_n) share one Spec
        bases: dict[str, Spec] = {}
        self.players = {name: (bases.setdefault(str(spec), spec), n) for name, spec, n in players}
        self.task_names, self.pairings, self.data_dir = task_names, pairings, data_dir
        self.tasks = resolve_tasks(task_names, [])
        self.per_task = crossplay.games_per_task(pairings, len(self.tasks))
        self.options = options_model([crossplay_protocol()]).model_validate({"rounds": 1, "turn_style": "simultaneous"})
        self.judge = judge_spec(judge)
        self.output, self.seed, self.concurrency = output, seed, concurrency

    def identity(self) -> dict[str, Any]:
        return {"kind": "crossplay", "agent": "crossplay", "debaters": self.names,
                "seed": self.seed, "tasks": self.task_names, "protocols": [crossplay_protocol().name],
                "options": self.options.model_dump(mode="json"), "pairings": self.pairings,
                "task_versions": task_versions(self.tasks)} | ({} if self.selfplay is None else {"selfplay": self.selfplay})

    def questions(self, store, prior, log) -> Prepared:
        from oversight_bench.tasks import data_dir

        prepared = load_questions(self.tasks, data_dir(self.data_dir), self.per_task, self.seed, 0, log)
        questions = list(prepared.questions)
        return Prepared(questions, questions, config={"task_types": {t.name: t.task_type for t in self.tasks}},
                        skipped=prepared.skipped, data=prepared.data, substitutions=prepared.substitutions)

    def model_specs(self) -> list[Spec]:
        return [self.players[name][0] for name in self.names]

    def models(self, judge: Model, judge_spec: Spec) -> Cast:
        models: dict[int, Model] = {}
        players: dict[str, tuple[Model, int]] = {}
        for name, (base, bon) in self.players.items():
            if id(base) not in models:  # one model per base spec, whatever best-of-N its players use
                models[id(base)] = shared_model(judge, judge_spec, base)
            players[name] = (models[id(base)], bon)
        return Cast(judge, debaters=players)

    def judged_tasks(self) -> list[str]:
        return [t.name for t in self.tasks]

    def jobs(self, prepared, store, config):
        pools = {t.name: [q for q in prepared.questions if q.task == t.name] for t in self.tasks}
        games = crossplay.plan_games(pools, self.names, self.pairings, self.seed, selfplay=self.selfplay)
        jobs = crossplay_jobs(crossplay_protocol(), games)
        return jobs, len(jobs)


# -- import ------------------------------------------------------------------------------------------


@dataclass
class Record:
    """One already-complete job of an import: the job (its variant names the room), who judged and
    argued it, its turns and its decision as stored."""

    job: Job
    judge: str
    agent: str
    turns: list[dict[str, Any]]
    decision: dict[str, Any]


class ImportPlan(Plan):
    """An importer's transcripts (peer debates and their judges): jobs that are already-complete
    records, written as they are; no model is built or called. An import goes into a new folder."""

    kind, desc = "import", "import"
    model_judge = False
    fresh_output = True
    seed = 0

    def __init__(self, output: str, config: dict[str, Any], questions: list[Question], records: list[Record],
                 skipped: dict[str, dict[str, int]] | None = None):
        self.output, self.config, self.held, self.records = output, config, questions, records
        self.skipped = skipped or {}
        self.judge, self.agent_name = config["judge"], config["agent"]
        self.options = stored_options(config.get("protocols") or [], config.get("options"))

    def identity(self) -> dict[str, Any]:
        return {k: v for k, v in self.config.items() if k not in ("judge", "judge_debias")} | {"kind": "import"}

    def check(self) -> None:
        """Every record as the store will check it, before the folder is made: a transcript the store
        would refuse halfway (a speaker [1], answers that are not text) leaves no half-written run."""
        for r in self.records:
            check_writable(r.job, judge=r.judge, agent=r.agent, turns=r.turns, decision=r.decision)

    def judged_tasks(self) -> set[str]:
        return {q.task for q in self.held}

    def questions(self, store, prior, log) -> Prepared:
        skipped = [{"task": t, "reason": r, "count": c} for t, rs in self.skipped.items() for r, c in rs.items()]
        return Prepared(self.held, self.held, skipped=skipped)

    def jobs(self, prepared, store, config):
        return [], 0  # nothing to schedule: `run` writes the records as they are

    def deviations(self, config):
        """Transcripts and verdicts made by others: none follows this run's settings; what the source did
        differently from the paper is declared as the importer found it (`import.differences`)."""
        return list((config.get("import") or {}).get("differences") or [])

    def run(self, started: Started, progress: bool) -> Stats:
        stats = Stats()
        for r in self.records:
            write_job(started.store, r.job, judge=r.judge, agent=r.agent, turns=r.turns, decision=r.decision)
            stats.jobs_done += 1
            stats.invalid += r.decision.get("answer") is None
        return stats
