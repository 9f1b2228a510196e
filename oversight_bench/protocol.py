"""What a protocol is: pure orchestration over the `Context` a runner gives it.

A protocol turns one `Job` (a question, an assignment, an answer order) into turns and a judge
`Decision`. Where the transcript does not depend on the judge (QA, debate), `play` and `judge`
are separate so stored transcripts can be re-judged with only judge calls.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from oversight_bench.models import Capabilities, Message
from oversight_bench.questions import Question, correct_index


class ProtocolOptions(BaseModel):
    """Options the paper ablates (§4.1), each a config value. Every default is the paper's main
    setting (§3.2.2, §4.1, App. D, App. H); `oversight_bench.deviations` names each value that differs.

    Sampling (§3.3 says only "default sampling options"): agents sample at temperature 1.0, the
    default of the OpenAI and Gemini APIs the paper used, so best-of-N draws distinct arguments.
    Judges answer at temperature 0.0, their most likely answer: a reading of §3.3 this project
    chose (the paper does not say whether judges were sampled); the other reading is
    `judge_temperature=1.0` (see configs/paper/README.md).
    """

    model_config = ConfigDict(extra="forbid")

    rounds: int = Field(3, ge=1, le=10, description="debate/consultancy rounds (paper: 3, §3.2.2)")
    turn_style: Literal["simultaneous", "sequential"] = "simultaneous"
    best_of_n: int = Field(4, ge=1, le=16, description="debater samples per turn, the debater model picks the most "
                           "persuasive (paper: 4 for debaters, §4.1; consultants always sample once)")
    judge_mode: Literal["predict", "cot", "probs"] = Field(
        "predict", description="predict: the judge writes 'Answer: N' (paper); cot: reasons first; probs (not the "
        "paper's): the predict prompt, its answer read as the more probable of the answer tokens after 'Answer: ', "
        "nothing generated, so a judge too small to follow the format still answers (needs logprobs)")
    few_shot: int = Field(0, ge=0, le=16, description="judge few-shot examples, balanced answer order (paper: 0)")
    answer_order: Literal["random", "both"] = Field("both", description="both answer orders per question, the "
                                                    "debate regenerated for each (paper: both, App. D)")
    word_limit: int = Field(150, ge=10, le=2000, description="words per argument asked for in the prompt (paper: 150)")
    truncate_words: bool = Field(False, description="also cut the argument shown to others at word_limit words "
                                 "(the paper only asks; off by default)")
    agent_temperature: float = Field(1.0, ge=0.0, le=2.0, description="consultants/debaters (§3.3: API default)")
    judge_temperature: float = Field(0.0, ge=0.0, le=2.0, description="judge answers and questions (our reading of §3.3)")
    agent_max_tokens: int = Field(400, ge=16)
    judge_max_tokens: int = Field(256, ge=4, description="judge questions and chain-of-thought verdicts")
    predict_max_tokens: int = Field(24, ge=4, description='predict-mode verdicts ("Answer: N" and little else)')
    qa_samples: int = Field(0, ge=0, le=64, description="extra sampled judge answers on QA without article, "
                            "for the compute-matched majority-vote baseline")


@dataclass(frozen=True)
class Job:
    """One protocol run on one question. `assignment` is `correct`/`incorrect` for consultancy,
    the protagonist's side for open roles, None otherwise."""

    protocol: str
    question: Question
    answer_order: str  # correct_first | correct_second
    assignment: str | None = None
    #: tells apart several transcripts of the same question, order and assignment (imported rooms)
    variant: str | None = None
    #: the agent's name when it is not the run's (re-judged imports, cross-play)
    agent: str | None = None
    #: cross-play: names of the debaters in slots 0 and 1 (defending displayed answers 1 and 2);
    #: the protocol's `speaker_slots` maps its speakers to these slots
    debaters: tuple[str, str] | None = None

    @property
    def answers(self) -> tuple[str, str]:
        return self.question.answers(self.answer_order)

    @property
    def correct_index(self) -> int:
        return correct_index(self.answer_order)

    @property
    def key(self) -> str:
        key = f"{self.protocol}|{self.question.task}|{self.question.id}|{self.assignment or '-'}|{self.answer_order}"
        if self.debaters:
            key += f"|{self.debaters[0]} vs {self.debaters[1]}"
        return key + (f"|{self.variant}" if self.variant else "")


@dataclass
class Turn:
    """One utterance. `content` is what the model wrote; `shown` is what others see
    (thinking stripped, passages verified)."""

    round: int
    role: str  # judge | consultant | debater
    speaker: str  # Judge, Consultant, Alice, Bob
    content: str
    shown: str
    defends: int | None = None  # displayed answer index the speaker argues for
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {**vars(self), "extra": dict(self.extra)}  # flat fields: no deep asdict needed

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Turn":
        return cls(**{k: d[k] for k in ("round", "role", "speaker", "content", "shown", "defends", "extra") if k in d})


@dataclass
class Decision:
    """The judge's verdict. `answer` is None when the output did not parse (invalid)."""

    raw: str
    answer: int | None
    correct: bool | None
    probs: list[float] | None = None  # [P(answer 1), P(answer 2)] where the backend can tell
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {**vars(self), "extra": dict(self.extra)}


class Context(abc.ABC):
    """Everything a protocol may use: call the judge or the agent, ask what the models support,
    and look up helper data. Protocols use nothing else (no duck-typing of the runner).

    The runner implements it: calls are cached by full request, recorded, and bounded.
    """

    #: the run's protocol options
    options: ProtocolOptions
    #: whether the judge is the position-debiased one (`debias=true` on the judge spec)
    judge_debias: bool = False

    @abc.abstractmethod
    async def generate(
        self,
        role: Literal["judge", "agent"],
        messages: list[Message],
        *,
        n: int = 1,
        max_tokens: int | None = None,
        temperature: float | None = None,
        stop: list[str] | None = None,
        tag: str = "",
        speaker: str | None = None,
    ) -> list[str]:
        """Sample n texts from the judge or the agent. `tag` names the call in records
        (e.g. "round2/Alice"); `speaker` picks that debater's own model in cross-play (see
        `Protocol.speaker_slots`)."""

    @abc.abstractmethod
    async def choice_probs(self, role: Literal["judge", "agent"], messages: list[Message], tag: str = "") -> list[float] | None:
        """[P("1"), P("2")] for the next token after "Answer: ", or None if the backend cannot tell."""

    @abc.abstractmethod
    def supports_images(self, role: Literal["judge", "agent"]) -> bool:
        """Whether the judge's or agent's model reads images."""

    @abc.abstractmethod
    def few_shot_examples(self, question: Question, k: int) -> list[tuple[Question, str]]:
        """k other questions of the same task with a balanced answer order, for judge few-shot."""

    def best_of_n(self, speaker: str | None = None) -> int:
        """Samples per debater turn (a cross-play debater variant may carry its own)."""
        return self.options.best_of_n

    @abc.abstractmethod
    async def sub_run(self, job: Job) -> tuple[list[Turn], Decision]:
        """Run another job (e.g. open consultancy reuses an assigned consultancy run)."""


class Protocol(abc.ABC):
    """Base class of protocol plugins."""

    name: str
    description: str = ""
    #: only for tasks with an article (QA with article)
    needs_article: bool = False
    #: the transcript does not depend on the judge, so `judge --from` can re-judge it
    rejudgeable: bool = True
    #: what the agent and judge models must support
    agent_needs: Capabilities = Capabilities(multi_sample=False)
    uses_agent: bool = True
    #: speaker name -> debater slot (0 or 1 of `Job.debaters`): whose model a speaker's agent
    #: calls use when cross-play gives each side its own debater (debate: Alice 0, Bob 1)
    speaker_slots: dict[str, int] = {}

    def assignments(self) -> list[str | None]:
        """The assignments every question is run with (consultancy: correct and incorrect)."""
        return [None]

    def can_rejudge(self, options: ProtocolOptions) -> bool:
        """Whether transcripts made with these options hold nothing the judge wrote, so another judge
        can decide them (`judge --from`)."""
        return self.rejudgeable

    @abc.abstractmethod
    async def play(self, ctx: Context, job: Job) -> list[Turn]:
        """Produce the transcript (agent turns, and judge questions where the protocol has them)."""

    @abc.abstractmethod
    async def judge(self, ctx: Context, job: Job, turns: list[Turn]) -> Decision:
        """The judge's decision on the transcript."""

    async def run(self, ctx: Context, job: Job) -> tuple[list[Turn], Decision]:
        turns = await self.play(ctx, job)
        return turns, await self.judge(ctx, job, turns)

    def describe_outcome(self, job: Job, turns: list[Turn], decision: Decision) -> dict[str, Any]:
        """Extra fields for the decision record (open roles: protagonist, win)."""
        return {}
