"""What a protocol is: pure orchestration over the `Context` a runner gives it.

A protocol turns one `Job` (a question, an assignment, an answer order) into turns and a judge
`Decision`. Where the transcript does not depend on the judge (QA, debate), `play` and `judge`
are separate so stored transcripts can be re-judged with only judge calls.
"""

from __future__ import annotations

import abc
import difflib
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from oversight_bench.errors import BenchError
from oversight_bench.judge_tools import ToolOutput
from oversight_bench.models import Capabilities, Completion, Message
from oversight_bench.questions import Question, correct_index


#: the `paper` value of an option the paper leaves to the API (it sets no token cap): such an
#: option is declared as a deviation at every value
NO_PAPER_VALUE = "not set by the paper"


def _opt(default: Any, paper: Any, label: str, *, judge: bool = False, **kw: Any) -> Any:
    """An option field with its paper value and how a deviation from it reads (`{v}`: this run's
    value, `{p}`: the paper's); `oversight_bench.deviations` derives its rules from these. `judge`:
    the option shapes the judge's requests only (the others shape the transcripts, so they say
    nothing about imported transcripts, which others made)."""
    return Field(default, json_schema_extra={"paper": paper, "label": label, "judge": judge}, **kw)


class ProtocolOptions(BaseModel):
    """Options the paper ablates (§4.1) and the budgets it leaves to the API, each a config value.
    Every field carries the paper's value (`paper` in its schema extra, or `NO_PAPER_VALUE` where the
    paper sets none, e.g. token caps): `oversight_bench.deviations` declares every value that differs,
    so a new option cannot be added without saying what the paper did.

    Sampling (§3.3 says only "default sampling options"): agents sample at temperature 1.0, the
    default of the OpenAI and Gemini APIs the paper used, so best-of-N draws distinct arguments.
    Judges answer at temperature 0.0, their most likely answer: not the API default, so it is a
    declared deviation (`judge_temperature=1.0` is the literal reading; configs/paper/README.md).

    Agents think privately, then argue (H.1, H.2). Thinking and argument have their own budgets:
    when the thinking budget is spent, the turn is continued from "Argument:" (a forced turn), so
    every turn reaches the judge as an argument; an argument cut at its budget is marked cut.
    """

    model_config = ConfigDict(extra="forbid")

    rounds: int = _opt(3, 3, "rounds {v} (paper {p})", ge=1, le=10, description="debate/consultancy rounds (paper: 3, §3.2.2)")
    turn_style: Literal["simultaneous", "sequential"] = _opt("simultaneous", "simultaneous", "turn style {v} (paper: {p})")
    best_of_n: int = _opt(4, 4, "best-of-N {v} (paper {p})", ge=1, le=16,
                          description="debater samples per turn, the debater model picks the most persuasive "
                          "(paper: 4 for debaters, §4.1; consultants always sample once)")
    judge_mode: Literal["predict", "cot", "probs"] = _opt(
        "predict", "predict", "judge mode {v} (paper: {p})",
        judge=True, description="predict: the judge writes 'Answer: N' (paper); cot: reasons first; probs (not the "
        "paper's): the predict prompt, its answer read as the more probable of the answer tokens after 'Answer: ', "
        "nothing generated, so a judge too small to follow the format still answers (needs logprobs)")
    few_shot: int = _opt(0, 0, "judge {v}-shot (paper {p}-shot)", judge=True, ge=0, le=16,
                         description="judge few-shot examples, balanced answer order (paper: 0)")
    answer_order: Literal["random", "both"] = _opt("both", "both", "answer order {v} (paper: {p})",
                                                   description="both answer orders per question, the "
                                                   "debate regenerated for each (paper: both, App. D)")
    word_limit: int = _opt(150, 150, "word limit {v} (paper {p})", ge=10, le=2000,
                           description="words per argument asked for in the prompt (paper: 150)")
    truncate_words: bool = _opt(False, False, "arguments cut at the word limit (paper: asked, not cut)",
                                description="also cut the argument shown to others at word_limit words "
                                "(the paper only asks; off by default)")
    agent_temperature: float = _opt(1.0, 1.0, "agent temperature {v} (paper: API default, {p})", ge=0.0, le=2.0,
                                    description="consultants/debaters (§3.3: API default)")
    judge_temperature: float = _opt(0.0, 1.0, "judge temperature {v} (paper: \"default sampling options\", read as the API default {p})",
                                    judge=True, ge=0.0, le=2.0, description="judge answers, questions and best-of-N picks")
    thinking_max_tokens: int = _opt(1024, NO_PAPER_VALUE, "agent thinking budget {v} tokens, then the turn is "
                                    "continued from \"Argument:\" (in the same generation, or by a second call asking "
                                    "for the argument alone where the backend cannot continue one; paper: no cap)", ge=16,
                                    description="tokens an agent may spend under 'Thinking:' before its turn is "
                                    "continued from 'Argument:' (a forced turn)")
    argument_max_tokens: int = _opt(512, NO_PAPER_VALUE, "agent argument budget {v} tokens, a longer argument is "
                                    "cut and marked (paper: no cap)", ge=16,
                                    description="tokens an agent's argument may take (cut there, and marked cut)")
    judge_max_tokens: int = _opt(256, NO_PAPER_VALUE, "judge question and chain-of-thought budget {v} tokens (paper: no cap)",
                                 judge=True, ge=4, description="judge questions and chain-of-thought verdicts")
    predict_max_tokens: int = _opt(24, NO_PAPER_VALUE, "judge predict-mode verdict budget {v} tokens (paper: no cap)",
                                   judge=True, ge=4, description='predict-mode verdicts ("Answer: N" and little else)')
    qa_samples: int = _opt(0, 0, "{v} extra sampled QA answers for a majority vote (paper: {p})", judge=True, ge=0, le=64,
                           description="extra sampled judge answers on QA without article, for the "
                           "compute-matched majority-vote baseline")
    judge_tool: str | None = _opt(
        None, None, "judge tool {v}: the judge's prompt also shows what the tool reports on each answer (outside the "
        "paper, whose judges have no tools)", judge=True, exclude_if=lambda v: v is None,
        description="a judge tool (beyond the paper): its report on each answer goes into every judge prompt, after "
        "the answers and the transcript, e.g. execute: each GSM8KQA program's sandboxed result; only on tasks the "
        "tool supports. Not stored when off, so runs without a tool keep the options they always had")

    @field_validator("judge_tool", mode="before")
    @classmethod
    def _tool_name(cls, v: Any) -> Any:
        """`none`, `off` or an empty value turn the tool off (`-o judge_tool=none` on a re-judging of a run
        that had one); a name must be a plain word (it names the tool in configs and reports)."""
        if v is None or (isinstance(v, str) and v.strip().lower() in ("", "none", "off", "null", "false")) or v is False:
            return None
        if not isinstance(v, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", v.strip()):
            raise ValueError("a judge tool's name (letters, digits, '_', '.', '-'), or none")
        return v.strip()

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, data: Any) -> Any:
        """A run stored before thinking and argument had their own budgets holds one cap for both
        (`agent_max_tokens`); re-judging it needs none of the agent budgets, so it is dropped here
        and `deviations` still declares it from the stored options.

        Any other unknown key is a typo far more often than not: the error names the nearest option
        and all of them. A BenchError passes through pydantic unchanged, so the line is this one
        wherever the options came from (`-o KEY=VALUE`, a config's `options:` or a variant)."""
        if not isinstance(data, dict):
            return data
        data = {k: v for k, v in data.items() if k != "agent_max_tokens"}
        unknown = [k for k in data if k not in cls.model_fields]
        if unknown:
            known = sorted(cls.model_fields)
            close = difflib.get_close_matches(str(unknown[0]), known, n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]!r}?" if close else ";"
            raise BenchError(f"unknown protocol option {str(unknown[0])!r}{hint} expected one of {', '.join(known)} "
                             f"(as -o KEY=VALUE or under options: in a config)")
        return data

    @classmethod
    def paper_value(cls, name: str) -> Any:
        return (cls.model_fields[name].json_schema_extra or {})["paper"]


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
