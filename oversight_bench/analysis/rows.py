"""`DecisionRow`: the one row every analysis reads for a decision (report, leaderboard, Elo, stance,
cost, open roles, the suites' figures and the end-of-run table), built in one place (`DecisionRow.of`)
from the typed stored record (`rundir.records.Decision`, read through `RunReader.decisions()`) and the
run around it.

What a row adds to the record, each from one rule here:
* open-role fields (`agent_choice`, `protagonist_correct`, `win`): protocol authors may store them at
  the top level or inside `extra`; missing ones are derived from `answer`, `agent_choice` and
  `correct_index`; `correct` likewise from `answer` and `correct_index` (None where `answer` is None);
* `task_type` (the record's, else its question's in the store, else `extra.task_type`, else "unknown"),
  `unjudged` (an imported room nobody judged, `extra.unjudged`);
* `judge` (the label tables group and show: "name (debiased)"), `judge_model`, `judge_debias`
  (`judge_fields`), `run_dir`;
* once the runs analysed together are known (`load.assign_settings`): `setting`,
  `setting_besides_tool`, `judge_tool`.

The stored record stays reachable whole as `record` (fields no analysis names included, in
`record.model_extra`); `extra` is its typed `DecisionExtra` (an empty one where none was stored).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from oversight_bench.models import judge_label, judge_of_record
from oversight_bench.rundir.records import Call, Decision, DecisionExtra, Usage


def judge_fields(stored_judge: str | None, config: dict[str, Any]) -> tuple[str, str, bool]:
    """(`judge`, the label tables group and show: "name (debiased)" for the position-debiased judge;
    `judge_model`, the plain name; `judge_debias`), from a record's judge and its run's config.
    The run's `judge_debias` applies to the run's own judge; stores written before that field existed
    carry `,debias=True` in the judge's name instead."""
    cfg_judge, cfg_debias = config.get("judge"), config.get("judge_debias")
    if all(isinstance(v, (str, bool, type(None))) for v in (stored_judge, cfg_judge, cfg_debias)):
        return _judge_fields(stored_judge, cfg_judge, cfg_debias)  # one parse per judge, not per record
    return _judge_fields.__wrapped__(stored_judge, cfg_judge, cfg_debias)


@lru_cache(maxsize=256)
def _judge_fields(stored_judge: str | None, cfg_judge: Any, cfg_debias: Any) -> tuple[str, str, bool]:
    cfg_name, cfg_debias = judge_of_record(cfg_judge, cfg_debias)
    name, debias = judge_of_record(stored_judge, None)
    if name == cfg_name:
        debias = debias or cfg_debias
    return judge_label(name, debias), name, debias


@dataclass(frozen=True)
class DecisionRow:
    """One judge's decision on one transcript, as the analyses read it.

    A frozen dataclass, not a pydantic model: the stored record was validated once already (as
    `records.Decision`, where the store was read) and a row only adds what its run says; and one
    row sits in many groups at once (its task's row, its task type's, a cell, a pairing), so a change
    made for one group must never reach another: a different row is a copy (`dataclasses.replace`:
    an open role derived from an assigned run, a leaderboard row's scope). Rows compare by value."""

    #: the record as stored, typed (fields no analysis names: `record.model_extra`)
    record: Decision
    #: the run folder it was read from, as given
    run_dir: str
    job_key: str
    #: the label tables group by: "name (debiased)" for the position-debiased judge
    judge: str
    judge_model: str
    judge_debias: bool
    agent: str | None
    protocol: str
    task: str
    question_id: str
    assignment: str | None
    answer_order: str | None
    answer: int | None
    #: as stored (true, false, 1 or 0), derived where only `answer` and `correct_index` were; None: no valid answer
    correct: bool | int | None
    probs: list[float] | None
    correct_index: int | None
    answers: list[str] | None
    task_type: str
    unjudged: bool
    agent_choice: int | None
    protagonist_correct: bool | int | None
    win: bool | int | None
    samples: list[Any] | None
    debaters: list[Any] | dict[str, Any] | None
    extra: DecisionExtra
    #: the judge tool the judge had (None: none): the record's, else its run's (`load.assign_settings`)
    judge_tool: str | None = None
    #: the options in which its run differs from the other runs analysed with it (`load.assign_settings`)
    setting: str | None = None
    setting_besides_tool: str | None = None
    #: an open role derived from an assigned-role run (`openrole.filter_assigned`): that run's protocol
    derived_from: str | None = None
    #: the leaderboard's column scope (a task type or `suite:<name>`), set where it builds its cells
    scope: str | None = None

    @classmethod
    def of(cls, record: Decision, *, config: dict[str, Any] | None = None, run_dir: str = "",
           task_types: dict[tuple[str, str], str] | None = None) -> "DecisionRow":
        """The row of a stored decision of the run whose config is `config` (`task_types`: its
        questions' types by (task, question_id))."""
        extra = record.extra if record.extra is not None else DecisionExtra()

        def lifted(name: str) -> Any:
            top = getattr(record, name)
            return getattr(extra, name) if top is None else top

        answer, ci = record.answer, record.correct_index
        correct = record.correct
        if correct is None and answer is not None and ci is not None:
            correct = int(answer) == int(ci)
        if answer is None:
            correct = None
        agent_choice, protagonist_correct, win = lifted("agent_choice"), lifted("protagonist_correct"), lifted("win")
        if protagonist_correct is None and agent_choice is not None and ci is not None:
            protagonist_correct = int(agent_choice) == int(ci)
        if win is None and agent_choice is not None and answer is not None:
            win = int(answer) == int(agent_choice)
        task_type = record.task_type or (task_types or {}).get((record.task, record.question_id)) or extra.task_type or "unknown"
        judge, judge_model, judge_debias = judge_fields(record.judge, config or {})
        return cls(record=record, run_dir=run_dir, job_key=record.job_key, judge=judge, judge_model=judge_model,
                   judge_debias=judge_debias, agent=record.agent, protocol=record.protocol, task=record.task,
                   question_id=record.question_id, assignment=record.assignment, answer_order=record.answer_order,
                   answer=answer, correct=correct, probs=record.probs, correct_index=ci, answers=record.answers,
                   task_type=task_type, unjudged=bool(extra.unjudged), agent_choice=agent_choice,
                   protagonist_correct=protagonist_correct, win=win, samples=record.samples, debaters=record.debaters,
                   extra=extra, judge_tool=(record.model_extra or {}).get("judge_tool"))

    def with_(self, **changes: Any) -> "DecisionRow":
        """A copy with `changes` (the row itself, shared by other groups, stays as it is)."""
        return replace(self, **changes)


@dataclass(frozen=True)
class CallRow:
    """One model call as the cost figures read it (`analysis.cost`): whose call, on which job, and its
    usage. The request and the response are left out (a run's calls hold every prompt: the analyses
    never read them, and a large run's would fill memory); the fields no analysis names stay in `other`."""

    key: str
    model: str
    role: str | None
    protocol: str | None
    task: str | None
    question_id: str | None
    assignment: str | None
    answer_order: str | None
    usage: Usage
    #: the stored call's fields not named by `records.Call`
    other: dict[str, Any]

    @classmethod
    def of(cls, call: Call) -> "CallRow":
        return cls(key=call.key, model=call.model, role=call.role, protocol=call.protocol, task=call.task,
                   question_id=call.question_id, assignment=call.assignment, answer_order=call.answer_order,
                   usage=call.usage, other=dict(call.model_extra or {}))
