"""What a protocol is: pure orchestration over the `Context` a runner gives it.

A protocol turns one `Job` (a question, an assignment, an answer order) into turns and a judge
`Decision`. Where the transcript does not depend on the judge (QA, debate), `play` and `judge`
are separate so stored transcripts can be re-judged with only judge calls.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any, Literal

from oversight_bench.errors import BenchError
from oversight_bench.judge_tools import ToolOutput
from oversight_bench.models import Capabilities, Completion, Message
from oversight_bench.protocol_options import NO_PAPER_VALUE, CommonOptions
from oversight_bench.questions import Question, correct_index

__all__ = ["NO_PAPER_VALUE", "CommonOptions", "Context", "Decision", "Job", "Protocol", "Turn"]


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
    def assigned_answer(self) -> int | None:
        """The displayed answer an assigned agent defends (assignment `correct` or `incorrect`), else None."""
        if self.assignment == "correct":
            return self.correct_index
        if self.assignment == "incorrect":
            return 3 - self.correct_index
        return None

    @property
    def key(self) -> str:
        key = f"{self.protocol}|{self.question.task}|{self.question.id}|{self.assignment or '-'}|{self.answer_order}"
        if self.debaters:
            key += f"|{self.debaters[0]} vs {self.debaters[1]}"
        return key + (f"|{self.variant}" if self.variant else "")


#: the speaker names stored turns carry beyond a protocol's own (a debate's Alice and Bob), in one place
#: for the protocols and the importers: the names imported rooms keep for their debaters (Michael et al.
#: 2023, Khan et al. 2024: their debaters refer to each other by them), each with the displayed answer
#: it defends; the consultant's; the judge's (a live judge's remarks in an imported room)
SOURCE_DEBATERS = {"Debater A": 1, "Debater B": 2}
CONSULTANT = "Consultant"
JUDGE = "Judge"


def source_debater(side: int) -> str:
    """The imported rooms' name of the debater defending displayed answer `side` (1 or 2)."""
    return next(name for name, s in SOURCE_DEBATERS.items() if s == side)


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
        """A stored turn of the current format (its fields checked where the store was read,
        `rundir.schema`); an older store's turns are read through `rundir.legacy.turn_fields` first."""
        return cls(**{k: d[k] for k in ("round", "role", "speaker", "content", "shown", "defends") if k in d},
                   extra=d.get("extra") or {})


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

    #: the protocol's options (its `Protocol.Options`, the run's values)
    options: CommonOptions
    #: whether the judge is the position-debiased one (`debias=true` on the judge spec)
    judge_debias: bool = False

    @abc.abstractmethod
    async def sample(
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
        prefix: str | None = None,
    ) -> list[Completion]:
        """Sample n completions from the judge or the agent, each with its token count and finish
        reason. `tag` names the call in records (e.g. "round2/Alice"); `speaker` picks that
        debater's own model in cross-play (see `Protocol.speaker_slots`); `prefix` begins the reply
        and the completion continues it (only where `can_continue` says so)."""

    async def generate(self, role: Literal["judge", "agent"], messages: list[Message], **kw: Any) -> list[str]:
        """The texts of `sample` (same arguments)."""
        return [c.text for c in await self.sample(role, messages, **kw)]

    def can_continue(self, role: Literal["judge", "agent"], speaker: str | None = None) -> bool:
        """Whether that model continues a begun reply (`sample(prefix=...)`)."""
        return False

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

    async def judge_tool(self, question: Question, answers: tuple[str, str]) -> ToolOutput | None:
        """What the run's judge tool (`options.judge_tool`, beyond the paper) reports on each of `answers`
        (as displayed), for the judge's prompt; None when the run has no tool. A context that cannot run
        tools refuses one rather than judge without it."""
        if self.options.judge_tool:
            raise BenchError(f"judge tool {self.options.judge_tool!r}: this context ({type(self).__name__}) cannot run judge tools")
        return None

    @abc.abstractmethod
    async def sub_run(self, job: Job) -> tuple[list[Turn], Decision]:
        """Run another job (e.g. open consultancy reuses an assigned consultancy run)."""


class Protocol(abc.ABC):
    """Base class of protocol plugins."""

    name: str
    description: str = ""
    #: the protocol's options: `CommonOptions` or a subclass adding the protocol's own (declared with
    #: `option(...)`); a run's options are those of its protocols together (`options_model`)
    Options: type[CommonOptions] = CommonOptions
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
    #: every speaker name its transcripts may hold; the store refuses a job whose turns name another
    #: (empty: not declared, nothing checked). The judge prompt names these same speakers.
    speakers: tuple[str, ...] = ()

    # What analysis reads about a stored protocol name (it names no protocol itself):
    #: the judge answers alone, the direct-QA baseline (§3.2.1): an agent's own answer in open roles
    #: (with the article on extractive tasks, see `needs_article`), a judge's difficulty strata, and
    #: the compute-matched majority vote
    baseline: bool = False
    #: two debaters argue the two answers in front of the judge: Elo reads these records
    has_debaters: bool = False
    #: the agent picks the side it argues (§3.2.3); its records carry `protagonist_correct` and `win`
    open_role: bool = False
    #: the open-role protocol built from this assigned one's records when no open run exists
    #: (the paper's construction, `analysis.openrole.filter_assigned`)
    open_form: str | None = None
    #: where tables and figures place it (lower first; the paper's order for the built-ins)
    display_order: int = 100
    #: the protocols the leaderboard's headline differences compare this one against (this − other)
    compared_with: tuple[str, ...] = ()
    #: run when a command names no protocols (the paper's four assigned-role protocols)
    in_default_run: bool = False
    #: the protocols whose stored transcripts this one's judge decides as they are (`judge --from RUN
    #: --as NAME`, judge calls only): its rooms are derived from theirs, question, answer order and
    #: variant kept, and the report pairs its decisions with theirs per question
    derived_from: tuple[str, ...] = ()
    #: what this protocol does that the paper does not, in a few words ("" for the paper's own): every
    #: run that includes it declares it as a deviation, and `list protocols` shows it
    outside_paper: str = ""

    def assignments(self) -> list[str | None]:
        """The assignments every question is run with (consultancy: correct and incorrect)."""
        return [None]

    def can_rejudge(self, options: CommonOptions) -> bool:
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


def registered_protocols() -> dict[str, Protocol]:
    """The installed protocols by name: what a stored protocol name means (a name no installed
    plugin registers has no facts, so analysis treats it as none of the kinds above)."""
    from oversight_bench.registry import get_registry

    reg = get_registry()
    return {name: reg.get("protocols", name) for name in reg.names("protocols")}


def protocols_where(fact: str) -> set[str]:
    """Names of the installed protocols whose `fact` attribute is true (e.g. "has_debaters")."""
    return {name for name, p in registered_protocols().items() if getattr(p, fact)}


def display_key(name: str) -> tuple:
    """Sort key placing protocol `name` by its `display_order` (unknown names last, by name)."""
    p = registered_protocols().get(name)
    return (p.display_order if p is not None else Protocol.display_order + 1, str(name))


def default_protocols() -> list[str]:
    """The protocols a run uses when it names none (`in_default_run`), in display order."""
    return sorted((n for n, p in registered_protocols().items() if p.in_default_run), key=display_key)


def derived_pairs() -> list[tuple[str, str]]:
    """(source, derived) for each installed protocol that re-judges another's transcripts
    (`derived_from`), in display order of the derived one."""
    return [(source, name) for name in sorted(registered_protocols(), key=display_key)
            for source in registered_protocols()[name].derived_from]


def headline_pairs() -> list[tuple[str, str]]:
    """(protocol, other) for each `compared_with` of the installed protocols, in display order."""
    return [(name, other) for name in sorted(registered_protocols(), key=display_key)
            for other in registered_protocols()[name].compared_with]
