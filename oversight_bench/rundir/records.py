"""The typed, versioned records of a run directory: run identity (config.json), question, turn
(with its budget fields), decision, call (with its usage). One description of what a store holds,
read by `rundir.reader.RunReader` and published as JSON Schema (docs/records-schema.json, a test
checks it is these models'; docs/concepts/records.md explains it) so a reader in another language
needs no Python.

Every model allows fields it does not name: plugins store their own (in `extra` or beside the
named fields), and a record keeps them. `rundir.schema` checks a row against these very fields where
a store is read (its checks are derived from the models, type by type: tests/test_evidence_model.py
checks both accept the same values), and they validate without coercion: a flag stored as 0 stays 0,
a count stored as text is refused.

`RECORDS_VERSION` is the version of these records; a store of an earlier format is read into them
through `rundir.legacy` (`legacy.RECORDS_OF_FORMAT`).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, StrictBool, StrictFloat, StrictInt, StrictStr

from oversight_bench.questions import Question

#: the version of the records below (a new field that changes no reading keeps it; a renamed or
#: re-meant field raises it, with its reading of older stores in `rundir.legacy`)
RECORDS_VERSION = 1

Text = StrictStr
Whole = Annotated[StrictInt, Field(ge=-2**63, lt=2**63)]
Count = Annotated[StrictInt, Field(ge=0, lt=2**63)]
Number = Annotated[Union[StrictInt, StrictFloat], Field(allow_inf_nan=False)]
Probability = Annotated[Union[StrictInt, StrictFloat], Field(ge=0, le=1, allow_inf_nan=False)]
#: true or false; stores written through SQLite's JSON hold 1 and 0 too
Flag = Union[StrictBool, Literal[0, 1]]


def _no_flag(value: Any) -> Any:
    """Refuse true and false where a number is meant (a Literal[1, 2] would take true as 1)."""
    if type(value) is bool:
        raise ValueError("expected answer 1 or 2, not true or false")
    return value


#: answer 1 or answer 2 (the order the judge was shown)
Side = Annotated[Literal[1, 2], BeforeValidator(_no_flag)]
#: a judge's probabilities of answer 1 and answer 2
Probs = Annotated[list[Probability], Field(min_length=2, max_length=2)]


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    #: the dict it was read from, where `from_stored(keep=True)` kept it (`stored` returns it)
    _kept: dict[str, Any] | None = PrivateAttr(default=None)

    @classmethod
    def from_stored(cls, data: dict[str, Any], *, keep: bool = False):
        """The record as stored (a flat dict: a row's columns and its JSON fields), typed. `keep`: keep
        `data` too (and each nested object's part of it), so that `stored()` gives it back exactly, key
        order included: what a page showing the raw record prints (the viewer's)."""
        record = cls.model_validate(data)
        if keep:
            _keep(record, data)
        return record

    def stored(self) -> dict[str, Any]:
        """The record as stored again: the dict it was read from where it was kept (a record is not
        changed once read), else the fields it was given, unknown ones included."""
        if self._kept is not None:
            return self._kept
        return self.model_dump(exclude_unset=True, by_alias=True)


def _keep(record: _Record, data: dict[str, Any]) -> None:
    """Keep `data` on `record` and each nested record's own part on it (the named fields' objects;
    fields the model does not name stay as stored already)."""
    record._kept = data
    for name in type(record).model_fields:
        value = getattr(record, name)
        if isinstance(value, _Record) and isinstance(data.get(name), dict):
            _keep(value, data[name])


class _Open(_Record):
    """A nested object whose named fields are checked and others kept."""


class JobFields(_Record):
    """The fields a turn's or decision's row names its job by (the store's columns)."""

    kind: Text = Field(description="turn or decision")
    job_key: Text = Field(description="the job's key: its fields and variant, joined")
    judge: Text = Field(description="the judge whose job this record belongs to")
    protocol: Text
    task: Text
    question_id: Text
    agent: Text | None = Field(None, description="the debaters' or consultant's model")
    assignment: Text | None = Field(None, description="which side the protagonist defends, where a protocol assigns one")
    answer_order: Text | None = Field(None, description="correct_first or correct_second")
    round: Whole | None = None
    #: absent where a decision is read without it; never null (the store's column is NOT NULL)
    seq: Whole = Field(None, description="a turn's place in its transcript (-1: the decision)")


class Budget(_Open):
    """How a turn fit its token budget."""

    forced: Flag | None = Field(None, description="the reply was forced out (its thinking ran out of budget)")
    cut: Flag | None = Field(None, description="the argument was cut to its budget")
    thinking_tokens: Count | None = None
    argument_tokens: Count | None = None


class TurnFormat(_Open):
    truncated_from_words: Count | None = Field(None, description="the argument's length in words before it was cut")


class TurnExtra(_Open):
    model: Text | None = Field(None, description="the model that spoke")
    budget: Budget | None = None
    format: TurnFormat | None = None
    best_of_n: dict[str, Any] | None = None


class Turn(JobFields):
    """One turn of a transcript: who spoke, in which role, and what the judge was shown."""

    role: Text = Field(description="the speaker's role (debater, consultant, ...)")
    speaker: Text = Field(description="one of the protocol's speakers")
    content: Text | None = Field(description="what the model said")
    shown: Text | None = Field(None, description="what the judge was shown (content when absent)")
    defends: Whole | None = Field(None, description="the answer the speaker argues for")
    extra: TurnExtra | None = None

    @property
    def shown_text(self) -> str | None:
        """What the judge was shown: `shown` where the record holds it (even null), else `content`."""
        return self.shown if "shown" in self.model_fields_set else self.content

    @property
    def budget(self) -> Budget:
        """The turn's budget fields (all None where none were stored)."""
        return (self.extra.budget if self.extra is not None else None) or Budget()


class HumanDecision(_Open):
    time_s: Number | None = None
    reason: Text | None = None


Debaters = Union[list[Any], dict[str, Any]]


class DecisionExtra(_Open):
    samples: list[Any] | None = None
    debiased: Flag | None = Field(None, description="the decision of the position-debiased judge (both orders)")
    orders: list[Any] | None = None
    debaters: Debaters | None = None
    agent_choice: Side | None = None
    protagonist_correct: Flag | None = None
    win: Flag | None = None
    human: HumanDecision | None = None
    task_type: Text | None = None
    room: Text | None = None
    unjudged: Flag | None = None
    answer_from: Text | None = None


class Decision(JobFields):
    """A judge's decision on one transcript."""

    raw: Text | None = Field(None, description="the judge's output as given")
    answer: Side | None = Field(None, description="the answer chosen (None: no valid answer)")
    correct: Flag | None = None
    probs: Probs | None = Field(None, description="the judge's probabilities of answer 1 and answer 2")
    correct_index: Side | None = None
    answers: list[Text] | None = Field(None, description="the answers as shown, in order")
    variant: Text | None = None
    unjudged: Flag | None = Field(None, description="an imported room nobody judged")
    task_type: Text | None = None
    agent_choice: Side | None = Field(None, description="open roles: the answer the protagonist chose")
    protagonist_correct: Flag | None = None
    win: Flag | None = None
    samples: list[Any] | None = None
    debaters: Debaters | None = None
    extra: DecisionExtra | None = None


class Image(_Open):
    data: Text = Field(description="base64")
    mime: Text


class QuestionRecord(_Record):
    """A question as the store keeps it, so a run reports and re-judges without the data folder."""

    id: Text
    task: Text
    task_type: Text
    question: Text
    correct: Text
    incorrect: Text
    article: Text | None = None
    meta: dict[str, Any] | None = None
    images: list[Image] | None = None

    @classmethod
    def from_question(cls, q: Question) -> "QuestionRecord":
        return cls(id=q.id, task=q.task, task_type=q.task_type, question=q.question, correct=q.correct,
                   incorrect=q.incorrect, article=q.article, meta=dict(q.meta),
                   images=[Image(mime=i.mime, data=base64.b64encode(i.data).decode()) for i in q.images])


class Request(_Open):
    messages: list[dict[str, Any]] | None = None
    kind: Text | None = Field(None, description="generate, or another backend call")


class Response(_Open):
    texts: list[Text] | None = None
    tokens: list[Any] | None = None
    finish: list[Any] | None = None
    probs: list[Probability] | None = None
    why: Text | None = None
    prompt_tokens: Count | None = None
    completion_tokens: Count | None = None


class Usage(BaseModel):
    """What one call cost."""

    model_config = ConfigDict(frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    attempts: int = 1


class Call(_Record):
    """One model call (the cache: identical requests are answered from it), with its usage."""

    key: Text = Field(description="the hash of the request's canonical JSON")
    model: Text
    role: Text | None = None
    tag: Text | None = None
    protocol: Text | None = None
    task: Text | None = None
    question_id: Text | None = None
    assignment: Text | None = None
    answer_order: Text | None = None
    prompt_tokens: Count | None = None
    completion_tokens: Count | None = None
    latency_s: Number | None = None
    attempts: Count | None = None
    created: Number | None = None
    request: Request
    response: Response

    @property
    def usage(self) -> Usage:
        return Usage(prompt_tokens=self.prompt_tokens or 0, completion_tokens=self.completion_tokens or 0,
                     latency_s=float(self.latency_s or 0), attempts=self.attempts if self.attempts is not None else 1)


@dataclass(frozen=True)
class SampledReplies:
    """A sampling call's replies without its request (`RunReader.sampling_calls`: what a browser of
    the samples lists; `RunReader.request` reads the prompt by `key`). Not a stored record of its own:
    the fields of a `Call` (`response.texts` as `texts`, `tag` as text)."""

    key: str
    tag: str
    protocol: str | None
    task: str | None
    question_id: str | None
    assignment: str | None
    answer_order: str | None
    texts: list[str]


class RunIdentity(_Record):
    """A run's identity and settings (its config.json): the fields readers take apart; a run's kind
    (run, judge, crossplay, an import) adds its own."""

    judge: Text | None = None
    agent: Text | None = None
    kind: Text | None = None
    options: dict[str, Any] | None = None
    protocols: list[Text] | None = None
    tasks: list[Any] | None = None
    deviations: list[Any] | None = Field(None, description="every setting of the run that differs from the paper's")


#: record kind -> its model (the kinds `rundir.schema.KINDS` checks)
MODELS: dict[str, type[_Record]] = {"turn": Turn, "decision": Decision, "call": Call, "question": QuestionRecord,
                                     "config": RunIdentity}


def records_schema() -> dict[str, Any]:
    """The JSON Schema docs/records-schema.json holds: one definition per record kind."""
    from pydantic.json_schema import models_json_schema

    _, top = models_json_schema([(m, "validation") for m in MODELS.values()],
                                title="oversight-bench run records", ref_template="#/$defs/{model}")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "version": RECORDS_VERSION,
            "description": "The records of a run directory (results.sqlite and config.json), by kind: "
                           + ", ".join(f"{k} -> {m.__name__}" for k, m in MODELS.items()),
            "kinds": {k: {"$ref": f"#/$defs/{m.__name__}"} for k, m in MODELS.items()}, **top}
