"""A study with human judges: what there is to judge, who judges what, and the study's database.

The human is a `Model` (`human_judge.HumanModel`) that answers the protocol's own judge calls with
what the person typed, so decisions, judge questions and transcripts come out of the protocols' own
code (`Protocol.play`, `Protocol.judge`) and the scheduler's record writer exactly as an LLM judge's
would. OUT is started through the pipeline like any run (`HumanStudyPlan`, `pipeline.start`).
Every call is cached in OUT's store, so a live consultancy is replayed from the cache after each
input (or after a restart) and never keeps state in memory that a killed server could lose.

Study rules (as in the human debate studies): a judge never sees the same question twice, whatever
the protocol or answer order; the next item comes from a seeded order, balanced across protocols
for each judge, then across judges (fewest judgements of the item), then across the study.

Identity: the organiser may register the study's judges (`register_judges`); each gets a personal
secret (the link `serve` prints once), stored only as its SHA-256, and only those links sign judges
in. Sessions live in the study database, so signing out ends one on the server.
"""

from __future__ import annotations

import hashlib
import random
import secrets
import statistics
import sqlite3
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from oversight_bench.api import (ORDERS, BenchError, CommonOptions, Job, Question, StoredRun, Turn, build_model,
                                 check_capabilities, get_registry, read_run, redact_spec, rejudge_jobs, start,
                                 stored_options, validation_error, write_run_files)
from human_judging.human_judge import HumanContext, HumanModel, HumanScheduler, HumanStudyPlan

STUDY_DB = "human_study.sqlite"
LIVE_PROTOCOLS = ("consultancy", "debate")
#: roles whose turns the judge reads (an open role's own direct-QA answer is not shown)
SHOWN_ROLES = ("debater", "consultant", "judge")

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (sid TEXT PRIMARY KEY, judge TEXT NOT NULL, csrf TEXT NOT NULL, created REAL);
-- the judges the organiser registered: a personal secret each, kept only as its SHA-256
CREATE TABLE IF NOT EXISTS judges (name TEXT PRIMARY KEY, secret_sha256 TEXT NOT NULL UNIQUE, issued REAL NOT NULL);
CREATE TABLE IF NOT EXISTS assignments (
    id TEXT PRIMARY KEY,          -- opaque: the only handle the browser gets
    n INTEGER NOT NULL,           -- order of assignment
    judge TEXT NOT NULL, item TEXT NOT NULL, job_key TEXT NOT NULL, protocol TEXT NOT NULL,
    task TEXT NOT NULL, question_id TEXT NOT NULL, assignment TEXT, answer_order TEXT NOT NULL,
    shown_at REAL NOT NULL, done_at REAL,
    UNIQUE (judge, task, question_id)   -- a judge never sees a question twice
);
"""


@dataclass
class Item:
    """Something to judge: a stored transcript (`turns`), or a live run of `protocol` on a
    question, whose assignment and answer order (`jobs`) are drawn when it is handed out."""

    key: str
    protocol: str
    question: Question
    jobs: list[Job]
    turns: list[Turn] | None = None
    rank: int = 0

    @property
    def live(self) -> bool:
        return self.turns is None


@dataclass
class View:
    """What the judge's page shows for one assignment (never the correct answer or the assignment)."""

    id: str
    protocol: str
    question: Question
    answers: tuple[str, str]
    turns: list[Turn]
    needs: str  # "question" (live consultancy, between rounds) or "decision"
    article: str | None  # only where the LLM judge reads it (QA with article)
    defends: int | None = None  # consultancy: the answer the consultant argues for
    extractive: bool = False
    number: int = 0
    #: debate: (speaker, answer it argues for) as the transcript names them, for the page's intro
    sides: list[tuple[str, int]] = field(default_factory=list)


class Study:
    """The items, the assignment queue and the writes of one `serve` session (one OUT directory)."""

    def __init__(self, source: str, output: str, *, agent: str | None = None, live: list[str] = (),
                 seed: int = 0, per_judge: int | None = None, option_overrides: dict[str, Any] | None = None):
        reg = get_registry()
        self.protocols = {n: reg.get("protocols", n) for n in reg.names("protocols")}
        for p in live:
            if p not in LIVE_PROTOCOLS:
                raise BenchError(f"--live {p}: live judging supports {', '.join(LIVE_PROTOCOLS)}")
        if live and not agent:
            raise BenchError("--live needs --agent SPEC: the model that argues in live consultancy or debate")
        stored = read_run(source)
        cfg, questions = stored.config, stored.questions
        self.per_judge = per_judge
        self.live = list(live)
        try:
            # the person gives an answer and a confidence: predict mode, no few-shot, no sampling; the page
            # shows no judge tool's output, so a person never judges as if they had one
            self.options = stored_options(cfg.get("protocols") or [], cfg.get("options"),
                                          {**(option_overrides or {}), "judge_mode": "predict", "few_shot": 0, "judge_tool": None})
            if "qa_samples" in type(self.options).model_fields:  # QA without article's own option
                self.options = self.options.model_copy(update={"qa_samples": 0})
        except ValidationError as exc:
            raise validation_error(exc, "study", noun="option", model=CommonOptions) from None
        #: what the study leaves out, each with its reason: [{protocol, count, reason}] (`serve` announces them)
        self.skipped: list[dict[str, Any]] = []
        self.items = self._static_items(stored) + self._live_items(live, questions)
        if not self.items:
            raise BenchError(f"{source} holds nothing a human can judge: no QA or debate transcripts"
                             + ("" if live else "; add --live consultancy --agent SPEC to judge live runs"))
        rng = random.Random(seed)
        order = sorted(self.items, key=lambda it: it.key)
        rng.shuffle(order)
        for rank, it in enumerate(order):
            it.rank = rank
        self.by_key = {it.key: it for it in self.items}
        self.seed = seed
        self.agent_name = redact_spec(agent) if agent else cfg.get("agent", "unknown")
        self.agent = build_model(agent) if agent else None  # a bad spec fails before OUT is written
        if self.agent is not None:
            check_capabilities(HumanModel("check"), self.agent, False, [self.protocols[p] for p in live],
                               list(questions.values()), "human", self.agent_name, self.options)
        plan = HumanStudyPlan(stored, output, agent_name=self.agent_name, options=self.options, seed=seed,
                              protocols={it.protocol for it in self.items}, live=list(live))
        self._run = start(plan, log=lambda m: None)
        self.store = self._run.store
        try:
            self.db = sqlite3.connect(Path(output) / STUDY_DB, isolation_level=None, check_same_thread=False)
            self.db.row_factory = sqlite3.Row
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.executescript(SCHEMA)
        except BaseException:
            self._run.close()
            raise
        self._reconcile()
        self._runners: dict[str, HumanScheduler] = {}

    # -- items -------------------------------------------------------------------------------------
    def _static_items(self, stored: StoredRun) -> list[Item]:
        """The source's transcripts another judge may decide (`StoredRun.rejudgeable`: not those whose
        LLM judge asked the questions)."""
        jobs, left_out = rejudge_jobs(stored)
        for p, count in sorted(left_out.items()):
            self.skipped.append({"protocol": p, "count": count, "reason": self._why_not_rejudgeable(p, stored)})
        return [Item(f"stored|{job.key}", job.protocol, job.question, [job], turns) for _, job, turns in jobs]

    def _why_not_rejudgeable(self, protocol: str, stored: StoredRun) -> str:
        if protocol not in self.protocols:
            return f"the protocol {protocol} is not installed here"
        rounds = (stored.config.get("options") or {}).get("rounds")
        if "import" in stored.config:  # others' transcripts: their own live judge spoke in them (nyu-2023's people)
            why = "their source's live judge asked questions in them, so another judge cannot stand in for it"
        elif protocol == "consultancy" and rounds:
            why = (f"their LLM judge asked the consultant questions between its {rounds} rounds, so they hold what "
                   "that judge wrote (only one-round consultancy can be judged again)")
        else:
            why = "their LLM judge wrote part of them, so another judge cannot decide them"
        if protocol in self.live:  # given already: the study's live runs of it stand in for these
            return why + f"; they are judged live instead (--live {protocol})"
        return why + (f"; judge it live instead: --live {protocol} --agent SPEC" if protocol in LIVE_PROTOCOLS else "")

    def _live_items(self, live, questions) -> list[Item]:
        items = []
        for p in live:
            protocol = self.protocols[p]
            for q in sorted(questions.values(), key=lambda q: (q.task, q.id)):
                jobs = [Job(p, q, order, a, variant="live") for a in protocol.assignments()
                        for order in ORDERS]
                items.append(Item(f"live|{p}|{q.task}|{q.id}", p, q, jobs))
        return items

    # -- judges and sessions ---------------------------------------------------------------------------
    @staticmethod
    def _digest(secret: str) -> str:
        return hashlib.sha256(secret.encode()).hexdigest()

    def register_judges(self, names: list[str], *, new_links: bool = False) -> dict[str, str]:
        """Register the study's judges; returns the new personal secrets by name (to be shown once:
        only their hashes are kept). A judge registered before keeps their secret unless `new_links`,
        which replaces it and ends their sessions."""
        issued = {}
        for name in names:
            known = self.db.execute("SELECT 1 FROM judges WHERE name=?", (name,)).fetchone()
            if known and not new_links:
                continue
            secret = secrets.token_urlsafe(24)
            self.db.execute("INSERT OR REPLACE INTO judges VALUES (?,?,?)", (name, self._digest(secret), time.time()))
            self.db.execute("DELETE FROM sessions WHERE judge=?", (name,))
            issued[name] = secret
        return issued

    def judges(self) -> list[str]:
        """The registered judges (empty: judges sign in by name, the local single-judge use)."""
        return [r[0] for r in self.db.execute("SELECT name FROM judges ORDER BY name")]

    def judge_for_key(self, secret: str | None) -> str | None:
        """The registered judge whose personal secret this is, or None."""
        if not secret:
            return None
        row = self.db.execute("SELECT name FROM judges WHERE secret_sha256=?", (self._digest(secret),)).fetchone()
        return row[0] if row else None

    def new_session(self, judge: str) -> str:
        sid = secrets.token_urlsafe(32)
        self.db.execute("INSERT INTO sessions VALUES (?,?,?,?)", (sid, judge, secrets.token_urlsafe(32), time.time()))
        return sid

    def session(self, sid: str | None) -> sqlite3.Row | None:
        if not sid:
            return None
        row = self.db.execute("SELECT * FROM sessions WHERE sid=?", (sid,)).fetchone()
        registered = self.judges()
        if row is not None and registered and row["judge"] not in registered:
            return None  # a name session from before the judges were registered
        return row

    def end_session(self, sid: str | None) -> None:
        """Sign-out: the session is gone on the server, whatever cookie a browser still holds."""
        if sid:
            self.db.execute("DELETE FROM sessions WHERE sid=?", (sid,))

    # -- the organiser's view -------------------------------------------------------------------------
    def overview(self) -> list[dict[str, Any]]:
        """Progress per judge (registered or seen), for the organiser: no answers, no secrets."""
        rows = self.db.execute("SELECT * FROM assignments ORDER BY n").fetchall()
        names = sorted(set(self.judges()) | {r["judge"] for r in rows})
        out = []
        for name in names:
            mine = [r for r in rows if r["judge"] == name]
            finished = [r for r in mine if r["done_at"] is not None]
            times = [r["done_at"] - r["shown_at"] for r in finished]
            done, total = self.progress(name)
            open_row = next((r for r in mine if r["done_at"] is None), None)
            sessions = self.db.execute("SELECT COUNT(*) FROM sessions WHERE judge=?", (name,)).fetchone()[0]
            out.append({"judge": name, "registered": name in self.judges(), "done": done, "total": total,
                        "protocols": dict(Counter(r["protocol"] for r in finished)),
                        "open": open_row["protocol"] if open_row else None,
                        "median_s": statistics.median(times) if times else None,
                        "last": max((r["done_at"] for r in finished), default=None), "sessions": sessions})
        return out

    def reach(self) -> dict[str, Any]:
        """How much of the study can ever be judged. A judge never sees a question twice (an item is a
        question under one protocol, stored or live, so the same question comes back under several items)
        and judges at most `per_judge`: each judge can judge at most min(per_judge, questions) items, and
        with J registered judges at most J times that (bounded by the items); with judges signing in by
        name there is no J, so only the per-judge bound is known."""
        questions = len({(it.question.task, it.question.id) for it in self.items})
        each = min(self.per_judge, questions) if self.per_judge else questions
        n_judges = len(self.judges())
        return {"items": len(self.items), "questions": questions, "per_judge": self.per_judge, "each": each,
                "judges": n_judges, "reachable": min(len(self.items), n_judges * each) if n_judges else None}

    # -- the queue -----------------------------------------------------------------------------------
    def _reconcile(self) -> None:
        """After a restart: an assignment whose decision is in the store is done."""
        for row in self.db.execute("SELECT * FROM assignments WHERE done_at IS NULL").fetchall():
            if self._decided(row):
                self.db.execute("UPDATE assignments SET done_at=? WHERE id=?", (time.time(), row["id"]))

    def _decided(self, row) -> bool:
        return self.store.has_decision(row["job_key"], f"human:{row['judge']}")

    def progress(self, judge: str) -> tuple[int, int]:
        done = self.db.execute("SELECT COUNT(*) FROM assignments WHERE judge=? AND done_at IS NOT NULL", (judge,)).fetchone()[0]
        seen = {(r["task"], r["question_id"]) for r in self.db.execute("SELECT task, question_id FROM assignments WHERE judge=?", (judge,))}
        left = len({(it.question.task, it.question.id) for it in self.items} - seen)
        total = done + left + (1 if self.current(judge) else 0)
        if self.per_judge:
            total = min(total, self.per_judge)
        return done, total

    def current(self, judge: str) -> sqlite3.Row | None:
        return self.db.execute("SELECT * FROM assignments WHERE judge=? AND done_at IS NULL ORDER BY n LIMIT 1",
                               (judge,)).fetchone()

    def next_assignment(self, judge: str) -> sqlite3.Row | None:
        """The judge's open assignment, or a new one from the balanced seeded queue (None: finished).
        Runs without awaiting, so two judges never draw at the same moment."""
        row = self.current(judge)
        if row is not None:
            return row
        rows = self.db.execute("SELECT * FROM assignments").fetchall()
        mine = [r for r in rows if r["judge"] == judge]
        if self.per_judge is not None and len(mine) >= self.per_judge:
            return None
        seen = {(r["task"], r["question_id"]) for r in mine}
        candidates = [it for it in self.items if (it.question.task, it.question.id) not in seen]
        if not candidates:
            return None
        my_protocols = Counter(r["protocol"] for r in mine)
        all_protocols = Counter(r["protocol"] for r in rows)
        uses = Counter(r["item"] for r in rows)
        item = min(candidates, key=lambda it: (my_protocols[it.protocol], uses[it.key], all_protocols[it.protocol], it.rank))
        job = self._pick_job(item, rows)
        n = 1 + max((r["n"] for r in rows), default=0)
        aid = secrets.token_urlsafe(12)
        self.db.execute("INSERT INTO assignments VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                        (aid, n, judge, item.key, job.key, item.protocol, item.question.task, item.question.id,
                         job.assignment, job.answer_order, time.time(), None))
        return self.db.execute("SELECT * FROM assignments WHERE id=?", (aid,)).fetchone()

    def _pick_job(self, item: Item, rows) -> Job:
        """A live item's assignment and answer order: the least used in the study, seeded tie-break."""
        if len(item.jobs) == 1:
            return item.jobs[0]
        by_assignment = Counter((r["protocol"], r["assignment"]) for r in rows)
        by_order = Counter((r["protocol"], r["answer_order"]) for r in rows)
        rng = random.Random(f"{self.seed}|{item.key}")
        tie = {j.key: rng.random() for j in item.jobs}
        return min(item.jobs, key=lambda j: (by_assignment[(j.protocol, j.assignment)] + by_order[(j.protocol, j.answer_order)],
                                              tie[j.key]))

    def _job(self, row) -> tuple[Item, Job]:
        item = self.by_key[row["item"]]
        job = next(j for j in item.jobs if j.key == row["job_key"])
        return item, job

    # -- judging ---------------------------------------------------------------------------------------
    def runner(self, judge: str) -> HumanScheduler:
        if judge not in self._runners:
            self._runners[judge] = self._run.runner(HumanScheduler, judge=HumanModel(judge), agent=self.agent,
                                                    judge_name=f"human:{judge}")
        return self._runners[judge]

    async def _transcript(self, judge: str, item: Item, job: Job) -> tuple[list[Turn], str]:
        """The transcript so far and what the human must give next. A live one is replayed from the
        store's call cache (new agent turns are generated), stopping where the human is needed."""
        if not item.live:
            return item.turns, "decision"
        protocol = self.protocols[job.protocol]
        turns, waiting = await HumanContext(self.runner(judge), job, protocol).play(protocol, job)
        return turns, ("question" if waiting else "decision")

    async def view(self, judge: str, row) -> View:
        item, job = self._job(row)
        turns, needs = await self._transcript(judge, item, job)
        q = job.question
        defends = job.assigned_answer  # the consultant's assigned side (None in QA and debate)
        shown = [t for t in turns if t.role in SHOWN_ROLES and (job.protocol != "debate" or t.role == "debater")]
        sides = sorted({(t.speaker, t.defends) for t in shown if t.role == "debater" and t.defends}, key=lambda s: s[1])
        return View(id=row["id"], protocol=job.protocol, question=q, answers=job.answers, turns=shown,
                    needs=needs, article=q.article if self.protocols[job.protocol].needs_article else None,
                    defends=defends, extractive=q.task_type == "extractive", number=row["n"], sides=sides)

    async def ask(self, judge: str, row, text: str) -> None:
        """The human's question to the consultant between rounds; the consultant's answer follows."""
        item, job = self._job(row)
        if not item.live or job.protocol != "consultancy":
            raise BenchError("only a live consultancy takes questions")
        model = self.runner(judge).models["judge"]
        _, needs = await self._transcript(judge, item, job)
        if needs != "question":
            raise BenchError("the consultancy is not waiting for a question")
        model.text = text
        try:
            await self._transcript(judge, item, job)
        finally:
            model.text = None

    async def decide(self, judge: str, row, choice: int, confidence: float, reason: str) -> None:
        """Store the human's decision as an ordinary decision record, then close the assignment."""
        item, job = self._job(row)
        runner = self.runner(judge)
        turns, needs = await self._transcript(judge, item, job)
        if needs != "decision":
            raise BenchError("the consultancy is still waiting for your question")
        model = runner.models["judge"]
        model.text = f"Answer: {choice}"
        other = round(1 - confidence, 6)
        p = [confidence, other] if choice == 1 else [other, confidence]
        model.probs = p
        try:
            protocol = self.protocols[job.protocol]
            _, decision = await runner.execute(protocol, job, turns)
        finally:
            model.text, model.probs = None, None
        now = time.time()
        human = {"confidence": confidence, "reason": reason, "time_s": round(now - row["shown_at"], 3),
                 "live": item.live}
        runner.save(protocol, job, turns, decision, human)
        self.db.execute("UPDATE assignments SET done_at=? WHERE id=?", (now, row["id"]))

    def close(self) -> None:
        try:
            try:  # the people's decisions so far as results.json + samples.jsonl, like any run's end
                write_run_files(self._run)
            except (OSError, BenchError) as exc:  # the decisions are in the store; only the derived files wait
                print(f"warning: results.json not written ({exc}); the decisions are stored", file=sys.stderr)
            self.db.close()
        finally:
            self._run.close()
