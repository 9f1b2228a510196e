"""A person as the protocols' judge: `HumanModel` answers the protocol's own judge calls with what
the person typed, `HumanContext` plays a protocol up to the person's next turn, `HumanScheduler`
writes the decisions through the runner, and `HumanStudyPlan` starts the study's run directory
through the pipeline like any run. So decisions, judge questions and transcripts come out of the
protocols' own code exactly as an LLM judge's would; the study's queue and its database are
`study`'s."""

from __future__ import annotations

from typing import Any

from oversight_bench.api import (Capabilities, Completion, CommonOptions, Job, JobContext, Model, Plan, Prepared,
                                 Protocol, Scheduler, Spec, StoredRun, Turn, judge_identity, JUDGE_SAMPLING)


class NeedsHuman(Exception):
    """The protocol asked the human judge for something the person has not typed yet."""


class HumanModel(Model):
    """A person as a judge model: `generate` returns the text they typed (a question for the
    consultant, or "Answer: N"), `choice_probs` the probabilities from their stated confidence."""

    capabilities = Capabilities(images=True, logprobs=True, multi_sample=False)

    def __init__(self, judge: str):
        super().__init__(Spec("human", judge))
        self.text: str | None = None
        self.probs: list[float] | None = None

    async def generate(self, messages, *, n=1, max_tokens=512, temperature=0.0, stop=None, seed=None):
        if self.text is None:
            raise NeedsHuman()
        text, self.text = self.text, None
        return [Completion(text)]

    async def choice_probs(self, messages, prefix="Answer: ", choices=("1", "2")):
        if self.probs is None:
            raise NeedsHuman()
        probs, self.probs = self.probs, None
        return probs


#: the reply a judge call the person has not answered yet gets, so the protocol's code runs on; the
#: transcript is cut at the first turn holding it (`HumanContext`)
WAITING = "\x00waiting for the human judge\x00"


class HumanContext(JobContext):
    """A job's context with a person as the judge. A judge call the person has not answered yet is
    not cached: it and every later call get `WAITING`, so the protocol's own `play` runs to its end
    and the transcript up to the person's turn is the protocol's, cut where `WAITING` first shows."""

    waiting = False

    async def sample(self, role, messages, *, n=1, **kw):
        if not self.waiting:
            try:
                return await super().sample(role, messages, n=n, **kw)
            except NeedsHuman:
                self.waiting = True
        return [Completion(WAITING)] * n

    async def choice_probs(self, role, messages, tag=""):
        if not self.waiting:
            try:
                return await super().choice_probs(role, messages, tag)
            except NeedsHuman:
                self.waiting = True
        return None

    async def play(self, protocol: Protocol, job: Job) -> tuple[list[Turn], bool]:
        """(the transcript so far, whether it waits for the person)."""
        turns = await protocol.play(self, job)
        if not self.waiting:
            return turns, False
        cut = next((i for i, t in enumerate(turns) if WAITING in t.content or WAITING in t.shown), len(turns))
        return turns[:cut], True


class HumanScheduler(Scheduler):
    """The runner for one human judge: the protocol's calls and record writing, no job pool."""

    def save(self, protocol: Protocol, job: Job, turns: list[Turn], decision, human: dict[str, Any]) -> None:
        decision.extra["human"] = human
        self._write(protocol, job, turns, decision)


class HumanStudyPlan(Plan):
    """The study's run directory: a judging of the source's transcripts (and of live runs) whose judges
    are people, started once per `serve` session (`pipeline.start`); decisions come in as they are made."""

    kind, desc = "judge", "human study"
    model_judge = False  # people, not model specs; the live agent is built and checked by the study

    def __init__(self, source: StoredRun, output: str, *, agent_name: str, options: CommonOptions, seed: int,
                 protocols: set[str], live: list[str]):
        self.source, self.output, self.agent_name, self.options = source, output, agent_name, options
        # the study's seed seeds the live runs' calls (the stored config keeps the source's, `judge_identity`)
        self.judge, self.seed, self.study_seed = "human", seed, seed
        self.protocol_names, self.live = protocols, live

    def identity(self) -> dict[str, Any]:
        """The study's config: the source's judging with the judges people. A person has no sampling
        settings, so the model judge's (temperature, token budgets, extra QA samples) are not recorded,
        and its deviations never declare them (a live agent's own options stay)."""
        ident = judge_identity(self.source, self.agent_name, self.options, self.protocol_names)
        ident["options"] = {k: v for k, v in ident["options"].items() if k not in JUDGE_SAMPLING}
        return ident | {"human_study": {"live": list(self.live), "study_seed": self.study_seed}}

    def questions(self, store, prior, log) -> Prepared:
        held = list(self.source.questions.values())
        return Prepared(held, held)

    def jobs(self, prepared, store, config):
        return [], 0  # none up front: each decision is judged when the person makes it
