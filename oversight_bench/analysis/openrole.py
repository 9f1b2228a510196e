"""Open consultancy and open debate (paper §3.2.3, Figure 3), with a difficulty-stratified view.

The agent picks its side with its own direct-QA answer. Metrics: win rate (the judge agrees with the
protagonist/consultant), judge accuracy, and accuracy conditional on the agent having chosen the
correct or the incorrect answer. The paper notes the questions an agent gets wrong are harder, so the
conditional comparison is also reported within difficulty strata, difficulty being the judge's own
QA-without-article correctness on the question.

Two sources: records of open protocols (with `agent_choice` / `protagonist_correct` / `win`, at the
top level or in `extra`), or the paper's filter over assigned-role runs given the agent's choices.
Choices, and the difficulty strata, are decided per (question, answer order) as §3.2.3 describes,
never by a vote across orders (which would have to break ties, e.g. in favour of the correct answer).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from oversight_bench.analysis.stats import mean_ci, per_question
from oversight_bench.analysis.rows import DecisionRow
from oversight_bench.protocol import protocols_where, registered_protocols

def _open_of() -> dict[str, str]:
    """Assigned protocol -> the open-role protocol built from its records (`Protocol.open_form`)."""
    return {n: p.open_form for n, p in registered_protocols().items() if p.open_form}


def _baseline(with_article: bool) -> set[str]:
    """The direct-QA protocols (`Protocol.baseline`) with or without the article."""
    return {n for n, p in registered_protocols().items() if p.baseline and p.needs_article == with_article}


def is_open(protocol: str | None) -> bool:
    return protocol in protocols_where("open_role")


def _qkey(d: DecisionRow) -> tuple[str, str, str]:
    return (d.task, d.question_id, d.answer_order)


def _decide(votes: list[bool]) -> bool | None:
    """One choice from the records of one (question, answer order): they normally are a single
    record; several that disagree (e.g. two runs combined) leave it undecided, never guessed."""
    return votes[0] if votes and all(v == votes[0] for v in votes) else None


def agent_choices(decisions: list[DecisionRow]) -> dict[tuple[str, str, str, str], bool | None]:
    """Whether the agent chose the correct answer, keyed by (agent, task, question_id, answer_order).

    §3.2.3: the agent's own direct-QA answer (QA with article on extractive tasks, without otherwise)
    in the same answer order as the assigned run it selects. From open-protocol records (their first
    turn is that answer), or from direct-QA records in which the agent model itself was the judge
    (its plain answer preferred over a position-debiased one). An invalid answer gives no choice
    (the question and order drop out); disagreeing replicates give None (undecided).
    """
    qa_votes: dict[tuple, list[bool]] = defaultdict(list)
    qa_debiased: dict[tuple, list[bool]] = defaultdict(list)
    qa_of = {True: _baseline(with_article=True), False: _baseline(with_article=False)}
    for d in decisions:
        if d.protocol in qa_of[d.task_type == "extractive"] and d.correct is not None:
            target = qa_debiased if d.judge_debias else qa_votes
            target[(d.judge_model or d.judge, *_qkey(d))].append(bool(d.correct))
    out = {k: _decide(v) for k, v in qa_debiased.items()}
    out.update({k: _decide(v) for k, v in qa_votes.items()})
    votes: dict[tuple, list[bool]] = defaultdict(list)
    open_role = protocols_where("open_role")
    for d in decisions:
        if d.protocol in open_role and d.protagonist_correct is not None:
            votes[(d.agent, *_qkey(d))].append(bool(d.protagonist_correct))
    out.update({k: _decide(v) for k, v in votes.items()})
    return out


def filter_assigned(decisions: list[DecisionRow], choices: dict[tuple, bool | None]) -> list[DecisionRow]:
    """The paper's construction of open roles from assigned-role runs, per (question, answer order).

    Consultancy: keep the run whose assigned side is the side the agent chose in that order. Debate:
    every run qualifies; the protagonist is the debater on the agent's chosen side. `win` is whether
    the judge picked the agent's side. A (question, order) without a decided choice drops out.
    """
    out = []
    open_of = _open_of()
    for d in decisions:
        proto = d.protocol
        if proto not in open_of or d.unjudged:
            continue
        chose_correct = choices.get((d.agent, *_qkey(d)))
        if chose_correct is None:
            continue
        if d.assignment in ("correct", "incorrect") and d.assignment != ("correct" if chose_correct else "incorrect"):
            continue  # an assigned side (consultancy) other than the agent's choice
        ci = int(d.correct_index)
        side = ci if chose_correct else 3 - ci
        win = None if d.answer is None else int(d.answer) == side
        out.append(d.with_(protocol=open_of[proto], derived_from=proto, agent_choice=side,
                           protagonist_correct=chose_correct, win=win))
    return out


def _block(decisions: list[DecisionRow]) -> dict[str, Any]:
    valid = [d for d in decisions if d.answer is not None]
    out: dict[str, Any] = {"n_records": len(decisions), "n": len(per_question(valid))}
    for name, subset in (("all", valid),
                         ("agent_correct", [d for d in valid if d.protagonist_correct]),
                         ("agent_incorrect", [d for d in valid if d.protagonist_correct is False])):
        m, lo, hi = mean_ci(per_question(subset).values())
        suffix = "" if name == "all" else f"_{name}"
        out[f"accuracy{suffix}"], out[f"ci_low{suffix}"], out[f"ci_high{suffix}"] = m, lo, hi
        out[f"n{suffix}"] = len(per_question(subset))
    w, wlo, whi = mean_ci(per_question(valid, "win").values())
    out.update(win_rate=w, win_ci_low=wlo, win_ci_high=whi)
    pc = [d for d in decisions if d.protagonist_correct is not None]
    out["agent_correct_rate"] = (sum(bool(d.protagonist_correct) for d in pc) / len(pc)) if pc else None
    return out


def judge_difficulty(decisions: list[DecisionRow]) -> dict[tuple[str, str, str, str], str]:
    """'judge_qa_correct' / 'judge_qa_incorrect' per (judge, task, question_id, answer_order): the
    judge's own QA-without-article answer in the same order (replicates that disagree: no stratum)."""
    acc: dict[tuple, list[bool]] = defaultdict(list)
    closed_book = _baseline(with_article=False)
    for d in decisions:
        if d.protocol in closed_book and d.correct is not None:
            acc[(d.judge, *_qkey(d))].append(bool(d.correct))
    out = {}
    for k, v in acc.items():
        decided = _decide(v)
        if decided is not None:
            out[k] = "judge_qa_correct" if decided else "judge_qa_incorrect"
    return out


def open_role_metrics(decisions: list[DecisionRow]) -> list[dict[str, Any]]:
    """One row per judge × agent × open protocol × task (and task type), with strata.

    Uses open-protocol records where present; otherwise derives open roles from assigned runs.
    """
    open_role = protocols_where("open_role")
    open_recs = [d for d in decisions if d.protocol in open_role and not d.unjudged]
    have = {(d.judge, d.agent, d.setting, d.protocol, d.task) for d in open_recs}
    derived = [d for d in filter_assigned(decisions, agent_choices(decisions))
               if (d.judge, d.agent, d.setting, d.protocol, d.task) not in have]
    recs = open_recs + derived
    difficulty = judge_difficulty(decisions)
    groups: dict[tuple, list] = defaultdict(list)
    for d in recs:
        groups[(d.judge, d.agent, d.setting, d.protocol, "task", d.task)].append(d)
        groups[(d.judge, d.agent, d.setting, d.protocol, "task_type", d.task_type or "unknown")].append(d)
    rows = []
    for (judge, agent, setting, proto, level, name), ds in sorted(groups.items(), key=lambda kv: str(kv[0])):
        row = {"judge": judge, "agent": agent, "setting": setting, "protocol": proto, "level": level, level: name,
               "source": "derived" if any(d.derived_from for d in ds) else "open_protocol", **_block(ds)}
        strata = {}
        for d in ds:
            s = difficulty.get((d.judge, *_qkey(d)))
            if s:
                strata.setdefault(s, []).append(d)
        row["by_difficulty"] = {s: _block(v) for s, v in sorted(strata.items())}
        rows.append(row)
    return rows
