"""Read decision records out of one or more run directories into one flat, normalised list (through
the one reader of a run, `rundir.reader.RunReader`).

Protocol authors may put open-role fields (`agent_choice`, `protagonist_correct`, `win`) either at the
top level of the decision or inside `extra`; normalising here keeps every analysis module simple.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oversight_bench.errors import BenchError
from oversight_bench.models import judge_label, judge_of_record
from oversight_bench.rundir.reader import RunReader
from oversight_bench.rundir.names import CONFIG_NAME

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


def judge_fields(stored_judge: str, config: dict[str, Any]) -> dict[str, Any]:
    """`judge` (the label tables group and show: "name (debiased)" for the position-debiased judge),
    `judge_model` (the plain name) and `judge_debias`, from a record's judge and its run's config.
    The run's `judge_debias` applies to the run's own judge; stores written before that field existed
    carry `,debias=True` in the judge's name instead."""
    cfg_name, cfg_debias = judge_of_record(config.get("judge"), config.get("judge_debias"))
    name, debias = judge_of_record(stored_judge, None)
    if name == cfg_name:
        debias = debias or cfg_debias
    return {"judge": judge_label(name, debias), "judge_model": name, "judge_debias": debias}


def load_run(directory: str | Path, *, with_turns: bool = False, with_calls: bool = True) -> Run:
    """Open a run directory read-only and normalise its records."""
    directory = Path(directory)
    if not directory.is_dir():
        raise BenchError(f"run directory {directory} does not exist; expected a folder written by 'oversight-bench run' or 'import'")
    with RunReader(directory, check_pages=True) as store:
        config = store.config()
        questions = store.questions()
        task_types = {k: q.task_type for k, q in questions.items()}
        decisions = []
        for d in store.iter_records("decision"):
            d = normalise_decision(d, task_types)
            d.update(judge_fields(d.get("judge"), config))
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
                turns.setdefault((t["job_key"], judge_fields(t.get("judge"), config)["judge"]), []).append(t)
    return Run(directory, config, decisions, calls, questions, turns)


def expand_dirs(dirs) -> list[Path]:
    """Run directories, where a folder holding no run but runs one level down (a preset's variants,
    e.g. runs/paper/ablation_rounds/rounds-1, .../rounds-3) stands for those runs."""
    out: list[Path] = []
    for d in map(Path, dirs):
        subs = sorted(p.parent for p in d.glob(f"*/{CONFIG_NAME}")) if d.is_dir() and not (d / CONFIG_NAME).exists() else []
        out.extend(subs or [d])
    return out


def assign_settings(runs: list[Run]) -> None:
    """Give every decision a `setting`: the protocol options in which its run differs from the other
    runs analysed together (e.g. "rounds=1"), None when they all agree. Ablations then show as
    separate rows and bars instead of being averaged into one. Also `judge_tool` (the judge tool the
    decision's judge had, None: none) and `setting_besides_tool` (the setting but for the tool), which
    pair the arms with and without a tool (`report.judge_tool_rows`)."""
    from oversight_bench.protocol_options import CommonOptions, all_options_model

    # a protocol's own option that a run does not hold (none of its protocols has it) counts as its default
    fields = all_options_model().model_fields
    own = {k: f.default for k, f in fields.items() if k not in CommonOptions.model_fields}
    # cross-play runs have the fixed settings of App. E (one round, best-of-N per player): not an arm
    opts = [own | r.config.get("options") if isinstance(r.config.get("options"), dict) and r.config.get("kind") != "crossplay"
            else None for r in runs]
    keys = [k for k in fields if len({repr(o.get(k)) for o in opts if o is not None}) > 1]
    for run, o in zip(runs, opts):
        label = ", ".join(f"{k}={o.get(k)}" for k in keys) if keys and o is not None else None
        others = [k for k in keys if k != "judge_tool"]
        besides = ", ".join(f"{k}={o.get(k)}" for k in others) if others and o is not None else None
        run_tool = (o or {}).get("judge_tool") or None
        for d in run.decisions:
            d["setting"] = label
            d["setting_besides_tool"] = besides
            d["judge_tool"] = d.get("judge_tool") or run_tool


def load_runs(dirs, **kw) -> list[Run]:
    if not dirs:
        raise BenchError("no run directories given; expected one or more folders written by 'oversight-bench run' or 'import'")
    runs = [load_run(d, **kw) for d in expand_dirs(dirs)]
    assign_settings(runs)
    return runs
