"""Schedules jobs concurrently, caches and records every model call, writes each finished job.

Memory stays flat: a fixed pool of workers pulls jobs from an iterator. In-flight calls are
bounded per model by a semaphore, and identical concurrent requests are made once.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import time
import traceback
from collections import Counter, OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from oversight_bench.budget import Budget, BudgetGuard, BudgetReached, spec_price
from oversight_bench.errors import BenchError, MalformedResponse
from oversight_bench.model_text import replace_surrogates
from oversight_bench.judge_tools import JudgeTool, ToolOutput, get_judge_tool
from oversight_bench.models import Completion, Model
from oversight_bench.protocol import Context, Decision, Job, Protocol, Turn
from oversight_bench.protocol_options import CommonOptions, own_options
from oversight_bench.questions import ORDERS, Question
from oversight_bench.rundir.jobs import job_fields, write_job
from oversight_bench.rundir.store import SharedCalls, Store, canonical_json, request_key


@dataclass
class Stats:
    jobs_done: int = 0
    jobs_skipped: int = 0  # already in the store
    jobs_failed: int = 0
    calls: int = 0  # calls that reached a model
    cache_hits: int = 0
    invalid: int = 0
    retries: int = 0
    errors: list[str] = field(default_factory=list)
    #: why jobs failed: one-line reason -> number of jobs (the end-of-run summary lists them)
    failures: Counter = field(default_factory=Counter)
    #: per model name, what its backend sent (`Model.traffic`: requests, re-sends, settled concurrency)
    traffic: dict[str, dict] = field(default_factory=dict)
    #: tokens (prompt + reply) of the calls the run directory holds, this run's included
    tokens: int = 0
    #: why the run stopped early (`--max-total-tokens` or `--max-cost` reached), one line; None: it did not
    budget_stop: str | None = None


@dataclass
class _Attempts:
    """The attempts of the call in progress, and the run's stats to count retries in as they happen."""

    stats: Stats
    n: int = 1
    #: tokens the server reported for the call's requests (`note_usage`), None when none was noted
    usage: list[int] | None = None
    #: why a choice_probs call has no probability (`note_no_probs`)
    why: str | None = None


_ATTEMPTS: contextvars.ContextVar[_Attempts | None] = contextvars.ContextVar("oversight_bench_attempts", default=None)


def note_retry() -> None:
    """Backends call this when they re-send a request (429, 5xx, timeout), from inside `generate`
    or `choice_probs`: the call's record counts its attempts and the progress display its retries."""
    box = _ATTEMPTS.get()
    if box is not None:
        box.n += 1
        box.stats.retries += 1


def note_usage(prompt_tokens: int, completion_tokens: int) -> None:
    """Backends call this with the usage a server reported for each request of a call (a call of
    several requests adds them up): stored with the call, probability calls included."""
    box = _ATTEMPTS.get()
    if box is not None:
        if box.usage is None:
            box.usage = [0, 0]
        box.usage[0] += int(prompt_tokens)
        box.usage[1] += int(completion_tokens)


def note_no_probs(why: str) -> None:
    """Backends call this when `choice_probs` returns None: the call's record keeps why (no
    logprobs, the answer token not among the top ones, ...), so an empty probability is never silent."""
    box = _ATTEMPTS.get()
    if box is not None:
        box.why = " ".join(str(why).split())[:300]


#: questions whose judge-tool output a run keeps in memory (the oldest are dropped beyond it)
TOOL_MEMO = 1024
#: times a call that got a malformed answer (`MalformedResponse`) is re-sent before its job fails
MALFORMED_RETRIES = 2
#: seconds before the first re-send of a malformed answer (doubled for each further one)
MALFORMED_BACKOFF = 0.1


def failure_reason(exc: BaseException) -> str:
    """A failed job's reason as one short line (what the summary counts)."""
    text = " ".join(str(exc).split()) or "(no message)"
    return f"{type(exc).__name__}: {text[:300]}"


def derive_seed(*parts: Any) -> int:
    """A stable 31-bit seed from any parts (run seed, job key, call tag)."""
    h = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(h[:4], "big") & 0x7FFFFFFF


class Scheduler:
    """Owns the models, the store and the call cache for one run (or one re-judging)."""

    def __init__(
        self,
        store: Store,
        *,
        judge: Model,
        agent: Model | None,
        judge_name: str,
        agent_name: str,
        options: CommonOptions,
        seed: int,
        judge_debias: bool = False,
        concurrency: int | None = None,
        few_shot_pool: dict[str, list[Question]] | None = None,
        protocols: dict[str, Protocol] | None = None,
        debaters: dict[str, tuple[Model, int]] | None = None,
        shared: SharedCalls | None = None,
        max_total_tokens: int | None = None,
        max_cost: float | None = None,
        judge_tool: JudgeTool | None = None,
    ):
        """`judge_tool`: the tool `options.judge_tool` names, as `pipeline.start` checked it against the
        plan's tasks (None: looked up by name when first used, as in library use without the pipeline)."""
        self.store = store
        self.max_total_tokens = max_total_tokens
        models = [m for m in (judge, agent, *(d[0] for d in (debaters or {}).values())) if m is not None]
        #: the budget guard (`budget.py`): made in `run`, from what the store already holds
        self.budget = Budget(max_total_tokens, max_cost, {
            m.name: p for m in models if (p := spec_price(getattr(getattr(m, "spec", None), "options", None) or {}))})
        self._guard = BudgetGuard(Budget())
        self.models = {"judge": judge, "agent": agent}
        self.names = {"judge": judge_name, "agent": agent_name}
        self.options = options
        self._options: dict[type, CommonOptions] = {}
        self.seed = seed
        self.judge_debias = judge_debias
        self.few_shot_pool = few_shot_pool or {}
        #: cross-play debaters by name: (model, best_of_n)
        self.debaters = debaters or {}
        #: every protocol by name, for jobs that run another protocol's job (`Context.sub_run`)
        self.protocols = protocols or {}
        self.stats = Stats()
        #: other runs' stored calls (`--cache-from`), or None
        self.shared = shared
        self._inflight: dict[str, asyncio.Future] = {}
        #: the judge tool's runs by question (`judge_tool_output`), and the one thread they run in
        self._tool_runs: OrderedDict[tuple[str, ...], asyncio.Future] = OrderedDict()
        self._tool: JudgeTool | None = judge_tool
        self._tool_pool: ThreadPoolExecutor | None = None
        # one semaphore per distinct model object, so judge == agent shares the bound
        self._sems: dict[int, asyncio.Semaphore] = {}
        for m in (judge, agent, *(d[0] for d in self.debaters.values())):
            if m is not None and id(m) not in self._sems:
                self._sems[id(m)] = asyncio.Semaphore(concurrency or m.max_concurrency)

    def options_of(self, protocol: Protocol) -> CommonOptions:
        """The run's options as `protocol`'s own `Options` (made once per options class)."""
        cls = getattr(protocol, "Options", CommonOptions)
        if cls not in self._options:
            self._options[cls] = own_options(protocol, self.options)
        return self._options[cls]

    # -- model calls -----------------------------------------------------------------------------
    async def call(self, role: str, kind: str, messages: list[dict], params: dict[str, Any], context: dict[str, Any],
                   model: Model | None = None) -> dict:
        """One cached model call. `kind` is generate or choice_probs. Returns the response dict."""
        model = model or self.models[role]
        if model is None:
            raise RuntimeError(f"no {role} model in this run (re-judging makes judge calls only)")
        request = {"kind": kind, **model.request_fingerprint(), "messages": messages, **params}
        blob = canonical_json(request)  # serialised once: hashed for the key, stored as is
        key = request_key(blob)
        ticket = None
        while True:
            cached = self.store.get_call(key)
            if cached is None and self.shared is not None:
                cached = self.shared.get(key)
                if cached is not None:  # answered in another run (--cache-from): stored here as a copy (0 attempts)
                    self.store.put_call(key, model=model.name, request=blob, response=cached, context={"role": role, **context},
                                        prompt_tokens=cached.get("prompt_tokens", 0), completion_tokens=cached.get("completion_tokens", 0),
                                        latency_s=0.0, attempts=0)
            if cached is not None or key in self._inflight:
                self._guard.settle(ticket, model.name)  # admitted, but an identical call was made meanwhile
                self.stats.cache_hits += 1
                return cached if cached is not None else await asyncio.shield(self._inflight[key])
            if ticket is not None or not self.budget.limited:
                break
            try:  # waits while the calls in flight may spend what is left; then the checks above again
                ticket = await self._guard.admit(model.name)
            except BudgetReached as exc:
                self.stats.budget_stop = str(exc)
                raise
        fut = asyncio.get_running_loop().create_future()
        self._inflight[key] = fut
        try:
            attempts = _Attempts(self.stats)
            token = _ATTEMPTS.set(attempts)
            try:
                for attempt in range(MALFORMED_RETRIES + 1):
                    try:
                        async with self._sems[id(model)]:
                            t0 = time.perf_counter()
                            if kind == "generate":
                                outs = await model.generate(messages, **params)
                                # lone surrogates (any backend's): U+FFFD, so the reply is stored and judged as data
                                response = {"texts": [replace_surrogates(c.text) for c in outs],
                                            "tokens": [c.completion_tokens for c in outs],
                                            "finish": [c.finish_reason for c in outs]}
                                ptoks, ctoks = (outs[0].prompt_tokens if outs else 0), sum(c.completion_tokens for c in outs)
                            else:
                                probs = await model.choice_probs(messages, **params)
                                response = {"probs": probs}
                                if probs is None:
                                    response["why"] = attempts.why or "the backend gave no probability"
                                ptoks, ctoks = 0, 0
                            if attempts.usage is not None:  # what the server billed, every request of the call
                                ptoks, ctoks = attempts.usage
                            latency = time.perf_counter() - t0
                        break
                    except MalformedResponse as exc:
                        if attempt == MALFORMED_RETRIES:  # bounded: only this call's job fails
                            raise MalformedResponse(f"{role} {model.name} gave a malformed answer "
                                                    f"{attempt + 1} times ({' '.join(str(exc).split())})") from None
                        note_retry()
                        await asyncio.sleep(MALFORMED_BACKOFF * 2**attempt)
            finally:
                _ATTEMPTS.reset(token)
            response.update(prompt_tokens=ptoks, completion_tokens=ctoks)
            self._guard.settle(ticket, model.name, ptoks, ctoks)
            ticket = None
            self.stats.calls += 1
            self.stats.tokens += ptoks + ctoks
            self.store.put_call(key, model=model.name, request=blob, response=response,
                                context={"role": role, **context}, prompt_tokens=ptoks,
                                completion_tokens=ctoks, latency_s=latency, attempts=attempts.n)
            fut.set_result(response)
        except BaseException as exc:
            self._guard.settle(ticket, model.name)  # failed: it spent nothing the run counts
            fut.set_exception(exc)
            fut.exception()  # mark retrieved
            raise
        finally:
            self._inflight.pop(key, None)
        # Two loop passes before this job's bookkeeping (the call is stored by now): when many
        # answers land at once, the calls their freed slots wake (one pass) all go out first.
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return response

    # -- the judge tool (beyond the paper) --------------------------------------------------------
    async def judge_tool_output(self, question: Question, answers: tuple[str, str]) -> ToolOutput | None:
        """The run's judge tool (`options.judge_tool`) on `question`'s two answers, given in the order
        `answers` displays them; None when the run has none. The tool runs once per question (both
        answer orders, every protocol and the debiased judge's second order share it), in a thread of
        its own so a slow tool never holds up the model backends' threads."""
        name = self.options.judge_tool
        if not name:
            return None
        if self._tool is None:
            self._tool = get_judge_tool(name)
        tool = self._tool
        canonical = question.answers(ORDERS[0])
        if tuple(answers) not in (canonical, canonical[::-1]):
            raise ValueError(f"answers {answers!r} are not question {question.task}/{question.id}'s two answers")
        key = (question.task, question.id, *canonical)
        fut = self._tool_runs.get(key)
        if fut is None:
            if self._tool_pool is None:
                self._tool_pool = ThreadPoolExecutor(1, thread_name_prefix="judge-tool")
            fut = asyncio.get_running_loop().run_in_executor(self._tool_pool, tool.run, question, canonical)
            self._tool_runs[key] = fut
            # a failed run is not kept: the next job of the question (or the resumed run) tries again
            fut.add_done_callback(lambda f, k=key: self._tool_runs.pop(k, None)
                                  if f.cancelled() or f.exception() is not None else None)
            while len(self._tool_runs) > TOOL_MEMO:  # memory stays flat however many questions run
                self._tool_runs.popitem(last=False)
        out = ToolOutput.of(tool, await asyncio.shield(fut))
        return out if tuple(answers) == canonical else out.swapped()

    # -- jobs --------------------------------------------------------------------------------------
    def job_fields(self, job: Job) -> dict[str, Any]:
        return job_fields(job, self.names["judge"], self.names["agent"])

    async def execute(self, protocol: Protocol, job: Job, turns: list[Turn] | None = None) -> tuple[list[Turn], Decision]:
        ctx = JobContext(self, job, protocol)
        if turns is None:
            return await protocol.run(ctx, job)
        return turns, await protocol.judge(ctx, job, turns)

    def _write(self, protocol: Protocol, job: Job, turns: list[Turn], decision: Decision) -> None:
        out = decision.to_dict()
        out.update(correct_index=job.correct_index, answers=list(job.answers))
        out.update(protocol.describe_outcome(job, turns, decision))
        if self.options.judge_tool:  # every decision says whether its judge had a tool (absent: none)
            out["judge_tool"] = self.options.judge_tool
        if decision.answer is None:
            self.stats.invalid += 1
        write_job(self.store, job, judge=self.names["judge"], agent=self.names["agent"],
                  turns=[t.to_dict() for t in turns], decision=out)

    async def run(
        self,
        work: Iterable[tuple[Protocol, Job, list[Turn] | None]],
        *,
        total: int,
        workers: int,
        on_progress: Callable[[Stats], None] = lambda s: None,
    ) -> Stats:
        """Run every (protocol, job, stored turns or None) not already in the store."""
        done = self.store.done_jobs(self.names["judge"])
        self.stats.tokens = self.store.total_tokens()
        self._guard = BudgetGuard(self.budget, self.store.tokens_by_model() if self.budget.limited else ())
        if self.budget.limited and self._guard.spent():
            self.stats.budget_stop = self._guard.reason  # the same limit on a resume: nothing is sent
        it = iter(work)

        async def worker():
            for protocol, job, turns in it:  # shared iterator: each item taken once
                if job.key in done:
                    self.stats.jobs_skipped += 1
                    on_progress(self.stats)
                    continue
                if self.stats.budget_stop is not None:
                    return  # the budget is spent: the other jobs wait for a resume
                try:
                    turns_out, decision = await self.execute(protocol, job, turns)
                except BudgetReached:
                    return  # its calls so far are stored; a resume finishes it without them
                except BenchError:
                    raise  # a user error (rejected key, unusable model or data): every job would hit it
                except Exception as exc:
                    self.stats.jobs_failed += 1
                    self.stats.failures[failure_reason(exc)] += 1
                    msg = f"{job.key}: {type(exc).__name__}: {exc}"
                    self.stats.errors.append(msg)
                    if not getattr(exc, "user_facing", False) and len(self.stats.errors) <= 1:
                        self.stats.errors.append(traceback.format_exc(limit=3))
                else:
                    self._write(protocol, job, turns_out, decision)
                    self.stats.jobs_done += 1
                on_progress(self.stats)

        self.store.begin_batching()
        tasks = [asyncio.ensure_future(worker()) for _ in range(max(1, workers))]
        try:
            await asyncio.gather(*tasks)
        finally:
            for t in tasks:  # on an error or Ctrl-C, stop the other workers before the last commit
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.store.end_batching()  # everything finished is committed before the run returns
            if self._tool_pool is not None:
                self._tool_pool.shutdown(wait=False)
                self._tool_pool = None
        return self.stats


class JobContext(Context):
    """The Context a protocol sees for one job of `protocol`."""

    def __init__(self, runner: Scheduler, job: Job, protocol: Protocol):
        self.runner = runner
        self.job = job
        self.protocol = protocol
        self.options = runner.options_of(protocol)
        self.judge_debias = runner.judge_debias

    def _context(self, tag: str) -> dict[str, Any]:
        f = self.runner.job_fields(self.job)
        return {k: f[k] for k in ("protocol", "task", "question_id", "assignment", "answer_order")} | {"tag": tag}

    def _debater(self, speaker: str | None) -> tuple[Model, int] | None:
        """(model, best_of_n) of the cross-play debater in the speaker's slot (the protocol's
        `speaker_slots`), or None: the run's agent and options."""
        slot = self.protocol.speaker_slots.get(speaker) if speaker is not None else None
        if self.job.debaters and slot is not None:
            return self.runner.debaters[self.job.debaters[slot]]
        return None

    def best_of_n(self, speaker=None):
        debater = self._debater(speaker)
        return debater[1] if debater else self.options.best_of_n

    async def sample(self, role, messages, *, n=1, max_tokens=None, temperature=None, stop=None, tag="", speaker=None,
                     prefix=None):
        o = self.options
        if max_tokens is None:
            max_tokens = o.judge_max_tokens if role == "judge" else o.argument_max_tokens
        if temperature is None:
            temperature = o.judge_temperature if role == "judge" else o.agent_temperature
        params = {"n": n, "max_tokens": max_tokens, "temperature": temperature, "stop": stop,
                  "seed": self._seed(role, tag)}
        model = self._model(role, speaker)
        if prefix:
            if not model.capabilities.continuation:
                raise BenchError(f"{model.name} cannot continue a begun reply (prefix); check can_continue first")
            params["prefix"] = prefix  # only then: every other request stays the same as before it existed
        resp = await self.runner.call(role, "generate", messages, params, self._context(tag), model=model)
        texts = list(resp["texts"])
        tokens = resp.get("tokens") or [None] * len(texts)  # calls stored before tokens and finish were kept
        finish = resp.get("finish") or [None] * len(texts)
        return [Completion(t, 0, k if k is not None else 0, f) for t, k, f in zip(texts, tokens, finish)]

    def _model(self, role: str, speaker: str | None) -> Model:
        debater = self._debater(speaker) if role == "agent" else None
        model = debater[0] if debater else self.runner.models[role]
        if model is None:
            raise RuntimeError(f"no {role} model in this run (re-judging makes judge calls only)")
        return model

    def can_continue(self, role, speaker=None):
        return bool(self._model(role, speaker).capabilities.continuation)

    def _seed(self, role: str, tag: str) -> int:
        """Per-call seed from the question, order, assignment, role and tag, not the protocol
        name: the same request made by two protocols (e.g. the agent's own QA answer in open
        consultancy and open debate) is then one cached call."""
        j = self.job
        return derive_seed(self.runner.seed, j.question.task, j.question.id, j.answer_order, j.assignment, role, tag)

    async def choice_probs(self, role, messages, tag=""):
        model = self.runner.models[role]
        if model is None or not model.capabilities.logprobs:
            return None
        resp = await self.runner.call(role, "choice_probs", messages, {}, self._context(tag))
        return resp["probs"]

    async def judge_tool(self, question, answers):
        return await self.runner.judge_tool_output(question, tuple(answers))

    def few_shot_examples(self, question, k):
        pool = [q for q in self.runner.few_shot_pool.get(question.task, []) if q.id != question.id][:k]
        return [(q, ORDERS[i % 2]) for i, q in enumerate(pool)]

    async def sub_run(self, job):
        return await self.runner.execute(self.runner.protocols[job.protocol], job)

    def supports_images(self, role: str) -> bool:
        """The judge's or agent's model; in cross-play, the agent side is the job's debaters, each
        speaking through its own model (all of them must read the images)."""
        if role == "agent" and self.job.debaters:
            return all(self.runner.debaters[d][0].capabilities.images for d in self.job.debaters)
        m = self.runner.models[role]
        return bool(m and m.capabilities.images)


__all__ = ["Scheduler", "JobContext", "Stats", "derive_seed", "failure_reason", "note_no_probs", "note_retry", "note_usage"]
