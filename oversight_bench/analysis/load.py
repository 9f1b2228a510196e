"""Read decision records out of one or more run directories into one flat, normalised list.

Protocol authors may put open-role fields (`agent_choice`, `protagonist_correct`, `win`) either at the
top level of the decision or inside `extra`; normalising here keeps every analysis module simple.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oversight_bench.errors import BenchError
from oversight_bench.store import Store

OPEN_FIELDS = ("agent_choice", "protagonist_correct", "win")


@dataclass
class Run:
    """One run directory: its config, decisions, turns grouped by job, calls and questions."""

    dir: Path
    config: dict[str, Any]
    decisions: list[dict[str, Any]]
    calls: list[dict[str, Any]]
    questions: dict[tuple[str, str], Any]
    turns: dict[tuple[str, str | None], list[dict[str, Any]]] = field(default_factory=dict)


def normalise_decision(d: dict[str, Any], task_types: dict[tuple[str, str], str] | None = None) -> dict[str, Any]:
    """Lift open-role fields out of `extra`, fill `task_type`, and derive `correct` when only
    `answer` and `correct_index` are present."""
    d = dict(d)
    extra = d.get("extra") or {}
    for f in OPEN_FIELDS:
        if d.get(f) is None and f in extra:
            d[f] = extra[f]
    if d.get("correct") is None and d.get("answer") is not None and d.get("correct_index") is not None:
        d["correct"] = int(d["answer"]) == int(d["correct_index"])
    if d.get("answer") is None:
        d["correct"] = None
    if d.get("protagonist_correct") is None and d.get("agent_choice") is not None and d.get("correct_index") is not None:
        d["protagonist_correct"] = int(d["agent_choice"]) == int(d["correct_index"])
    if d.get("win") is None and d.get("agent_choice") is not None and d.get("answer") is not None:
        d["win"] = int(d["answer"]) == int(d["agent_choice"])
    if not d.get("task_type"):
        d["task_type"] = (task_types or {}).get((d.get("task"), d.get("question_id"))) or extra.get("task_type") or "unknown"
    d["unjudged"] = bool(extra.get("unjudged"))
    return d


def load_run(directory: str | Path, *, with_turns: bool = False, with_calls: bool = True) -> Run:
    """Open a run directory read-only and normalise its records."""
    directory = Path(directory)
    if not directory.is_dir():
        raise BenchError(f"run directory {directory} does not exist; expected a folder written by 'oversight-bench run' or 'import'")
    store = Store.open(directory)
    try:
        questions = store.questions()
        task_types = {k: q.task_type for k, q in questions.items()}
        decisions = []
        for d in store.iter_records("decision"):
            d = normalise_decision(d, task_types)
            d["run_dir"] = str(directory)
            decisions.append(d)
        calls = []
        if with_calls:
            for c in store.iter_calls():
                c.pop("request", None)
                c.pop("response", None)
                calls.append(c)
        turns: dict[tuple[str, str | None], list[dict[str, Any]]] = {}
        if with_turns:
            for t in store.iter_records("turn"):
                turns.setdefault((t["job_key"], t["judge"]), []).append(t)
        config = store.read_config() or {}
    finally:
        store.close()
    return Run(directory, config, decisions, calls, questions, turns)


def load_runs(dirs, **kw) -> list[Run]:
    if not dirs:
        raise BenchError("no run directories given; expected one or more folders written by 'oversight-bench run' or 'import'")
    return [load_run(d, **kw) for d in dirs]
